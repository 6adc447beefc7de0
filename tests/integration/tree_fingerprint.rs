//! The tree fingerprint (docs/receipts.md, "The tree fingerprint"): computed
//! from a commit's objects, it equals the work-tree fingerprint of a clean
//! checkout of that commit, and git's own listing of the commit (`git ls-tree`,
//! `git cat-file`) is the oracle for what it covers.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use gate::fingerprint::{Fingerprint, Inputs, Touched, Trees, Unavailable, fingerprint, of_tree};
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

// ---------------------------------------------------------------------------
// The blob cache (docs/receipts.md, "Cost: the blob cache").

/// The blob cache file of a SHA-1 repository under `dir`.
fn blob_cache(dir: &std::path::Path) -> PathBuf {
    dir.join("blobs-sha1.cache")
}

/// The entries of the blob cache file at `file`, read by its documented
/// format (a blob id, its size and SHA-256); `None` when it is not a whole,
/// sealed cache of SHA-1 ids.
fn cache_entries(file: &std::path::Path) -> Option<BTreeMap<String, (u64, [u8; 32])>> {
    use sha2::{Digest, Sha256};
    let bytes = std::fs::read(file).ok()?;
    let (body, seal) = bytes.split_at(bytes.len().checked_sub(32)?);
    if Sha256::digest(body).as_slice() != seal || !body.starts_with(b"gate-blob-cache\n") {
        return None;
    }
    let u32_at = |at: usize| u32::from_le_bytes(body[at..at + 4].try_into().unwrap());
    let (version, id_len) = (u32_at(16), u32_at(20) as usize);
    let count = u64::from_le_bytes(body[28..36].try_into().unwrap()) as usize;
    if version != 1 || id_len != 20 || body.len() != 36 + count * (20 + 44) {
        return None;
    }
    let mut entries = BTreeMap::new();
    for entry in body[36..].chunks(64) {
        let id: String = entry[..20].iter().map(|b| format!("{b:02x}")).collect();
        let size = u64::from_le_bytes(entry[20..28].try_into().unwrap());
        entries.insert(id, (size, entry[28..60].try_into().unwrap()));
    }
    Some(entries)
}

/// The blob ids git lists under `sources` at `commit`, `.gate/` left out.
fn blob_ids(repo: &TestRepo, commit: &str, sources: &[&str]) -> BTreeSet<String> {
    let mut args = vec!["ls-tree", "-r", "-z", "--full-tree", commit, "--"];
    args.extend(sources);
    nul_fields(&repo.git_bytes(&args))
        .into_iter()
        .filter(|line| {
            !line
                .split(|b| *b == b'\t')
                .nth(1)
                .unwrap()
                .starts_with(b".gate/")
        })
        .map(|line| {
            String::from_utf8(line[..line.iter().position(|b| *b == b'\t').unwrap()].to_vec())
                .unwrap()
        })
        .filter(|meta| meta.split(' ').nth(1) == Some("blob"))
        .map(|meta| meta.split(' ').nth(2).unwrap().to_owned())
        .collect()
}

/// Every entry of the cache at `file` that names a blob of `repo` says its
/// true size and SHA-256 (`git cat-file` the oracle); the ids it holds.
#[track_caller]
fn cache_is_true(repo: &TestRepo, file: &std::path::Path) -> BTreeSet<String> {
    use sha2::{Digest, Sha256};
    let entries = cache_entries(file).expect("a whole blob cache");
    for (id, (size, sha)) in &entries {
        if !repo.git_ok(&["cat-file", "-e", id]) {
            continue;
        }
        let blob = repo.git_bytes(&["cat-file", "blob", id]);
        assert_eq!(*size, blob.len() as u64, "{id}");
        assert_eq!(sha, Sha256::digest(&blob).as_slice(), "{id}");
    }
    entries.into_keys().collect()
}

/// A history of several commits: files added, edited, deleted, renamed,
/// made executable, the same bytes at two paths, a task file under `.gate/`.
fn history() -> (TestRepo, Vec<String>) {
    let repo = TestRepo::new();
    let mut rng = crate::support::Rng::new(29);
    for i in 0..60 {
        repo.write(
            &format!("src/m{}/f{i}.rs", i % 6),
            format!("pub fn f{i}() {{}}\n").repeat(1 + i % 9),
        );
    }
    repo.write("docs/same.txt", "same bytes\n");
    repo.write("src/same.txt", "same bytes\n");
    repo.write(".gate/tasks/T-1.md", "task\n");
    let mut commits = vec![repo.commit_all("initial")];
    for round in 1..6 {
        for _ in 0..5 {
            let i = rng.below(60);
            repo.write(
                &format!("src/m{}/f{i}.rs", i % 6),
                format!("// round {round}\npub fn f{i}() {{}}\n"),
            );
        }
        let i = rng.below(60);
        let path = format!("src/m{}/f{i}.rs", i % 6);
        if repo.path().join(&path).exists() {
            match round % 3 {
                0 => repo.git(&["rm", "-q", &path]),
                1 => repo.git(&["mv", &path, &format!("src/moved{round}.rs")]),
                _ => {
                    repo.chmod(path.as_bytes(), true);
                    String::new()
                }
            };
        }
        repo.write(&format!("docs/d{round}.md"), format!("doc {round}\n"));
        commits.push(repo.commit_all(&format!("round {round}")));
    }
    (repo, commits)
}

const HISTORY_SOURCES: [&[&str]; 3] = [&["src"], &["src", "docs"], &["docs/same.txt", "absent"]];

#[test]
fn the_blob_cache_gives_the_objects_answer_cold_and_warm() {
    if !isolate(this_test!()) {
        return;
    }
    let (repo, commits) = history();
    let git = open(&repo);
    let dir = cache_dir(&repo);
    for commit in &commits {
        for sources in HISTORY_SOURCES {
            let (owned_sources, touched) = owned(sources, &["README.md"]);
            let inputs = inputs(&owned_sources, &touched);
            let id = Oid::from_hex(commit).unwrap();
            let expected = oracle(&repo, commit, sources, &["README.md"]);
            // Without a cache file: every blob read from the objects.
            let pure = of_tree(&git, id, &inputs).unwrap();
            assert_eq!(digest(&pure), expected, "{commit} {sources:?}");
            // A cold cache, then a warm one: the same answer, entries and bytes too.
            std::fs::remove_dir_all(&dir).ok();
            let mut cold = Trees::cached(&git, &dir);
            assert_eq!(cold.of_commit(&git, id, &inputs).unwrap(), pure);
            let hashed = cold.stats().hashed;
            drop(cold);
            let mut warm = Trees::cached(&git, &dir);
            assert_eq!(warm.of_commit(&git, id, &inputs).unwrap(), pure);
            assert_eq!(warm.stats().hashed, 0, "{commit} {sources:?}");
            // Each distinct blob hashed once, whatever number of paths hold it.
            let blobs = blob_ids(&repo, commit, sources);
            assert_eq!(hashed, blobs.len() as u64, "{commit} {sources:?}");
            assert_eq!(cache_is_true(&repo, &blob_cache(&dir)), blobs);
        }
    }
    // Commit after commit through one cache: each costs the blobs it adds.
    std::fs::remove_dir_all(&dir).ok();
    let mut seen = BTreeSet::new();
    for commit in &commits {
        let (sources, touched) = owned(&["src", "docs"], &[]);
        let mut trees = Trees::cached(&git, &dir);
        let fp = trees
            .of_commit(
                &git,
                Oid::from_hex(commit).unwrap(),
                &inputs(&sources, &touched),
            )
            .unwrap();
        assert_eq!(digest(&fp), oracle(&repo, commit, &["src", "docs"], &[]));
        let blobs = blob_ids(&repo, commit, &["src", "docs"]);
        let new = blobs.difference(&seen).count() as u64;
        assert_eq!(trees.stats().hashed, new, "{commit}");
        seen.extend(blobs);
    }
}

#[test]
fn a_run_answers_each_commit_and_inputs_once() {
    if !isolate(this_test!()) {
        return;
    }
    let (repo, commits) = history();
    let git = open(&repo);
    let dir = cache_dir(&repo);
    let mut trees = Trees::cached(&git, &dir);
    let (sources, touched) = owned(&["src"], &[]);
    let tip = Oid::from_hex(commits.last().unwrap()).unwrap();
    let first = trees
        .of_commit(&git, tip, &inputs(&sources, &touched))
        .unwrap();
    let stats = trees.stats();
    assert_eq!(
        trees
            .of_commit(&git, tip, &inputs(&sources, &touched))
            .unwrap(),
        first
    );
    assert_eq!(trees.stats().answered_again, 1);
    assert_eq!(
        (trees.stats().hashed, trees.stats().from_cache),
        (stats.hashed, stats.from_cache)
    );
    // Other inputs are another question.
    let (more, _) = owned(&["src", "docs"], &[]);
    trees
        .of_commit(&git, tip, &inputs(&more, &touched))
        .unwrap();
    assert_eq!(trees.stats().answered_again, 1);
}

/// Garbage, a truncated file, another format version, another object
/// format's ids, an empty file, a directory: never trusted, the answer the
/// same, and the file replaced by a whole cache.
#[test]
fn a_cache_file_not_to_trust_is_ignored_and_rewritten() {
    if !isolate(this_test!()) {
        return;
    }
    use sha2::{Digest, Sha256};
    let (repo, commits) = history();
    let git = open(&repo);
    let dir = cache_dir(&repo);
    let tip = commits.last().unwrap();
    let id = Oid::from_hex(tip).unwrap();
    let (sources, touched) = owned(&["src", "docs"], &[]);
    let expected = oracle(&repo, tip, &["src", "docs"], &[]);
    let blobs = blob_ids(&repo, tip, &["src", "docs"]);
    // A good file to spoil.
    drop(Trees::cached(&git, &dir).of_commit(&git, id, &inputs(&sources, &touched)));
    let good = std::fs::read(blob_cache(&dir)).unwrap();
    let resealed = |mut bytes: Vec<u8>| {
        bytes.truncate(bytes.len() - 32);
        let sum = Sha256::digest(&bytes);
        bytes.extend_from_slice(&sum);
        bytes
    };
    let mut version_2 = good.clone();
    version_2[16] = 2;
    let mut sha256_ids = good.clone();
    sha256_ids[20] = 32;
    let spoiled: Vec<(&str, Vec<u8>)> = vec![
        (
            "garbage",
            b"gate-blob-cache\n not a cache at all".repeat(40),
        ),
        ("truncated", good[..good.len() - 70].to_vec()),
        ("one bit flipped", {
            let mut bad = good.clone();
            bad[100] ^= 1;
            bad
        }),
        ("version 2", resealed(version_2)),
        ("SHA-256 ids", resealed(sha256_ids)),
        ("empty", Vec::new()),
    ];
    for (what, bytes) in spoiled {
        std::fs::write(blob_cache(&dir), &bytes).unwrap();
        let mut trees = Trees::cached(&git, &dir);
        let fp = trees
            .of_commit(&git, id, &inputs(&sources, &touched))
            .unwrap();
        assert_eq!(digest(&fp), expected, "{what}");
        // Every distinct blob read again: nothing taken from the file.
        assert_eq!(
            trees.stats().hashed,
            blobs.len() as u64,
            "{what}: nothing trusted"
        );
        drop(trees);
        assert_eq!(
            cache_is_true(&repo, &blob_cache(&dir)),
            blobs,
            "{what}: rewritten"
        );
    }
    // Not a file at all: no cache, the same answer.
    std::fs::remove_file(blob_cache(&dir)).unwrap();
    std::fs::create_dir(blob_cache(&dir)).unwrap();
    let mut trees = Trees::cached(&git, &dir);
    let fp = trees
        .of_commit(&git, id, &inputs(&sources, &touched))
        .unwrap();
    assert_eq!(digest(&fp), expected);
    drop(trees);
    // Another repository's cache (its ids are its blobs: true, and of no
    // use here): the same answer, its entries kept beside this one's.
    std::fs::remove_dir_all(&dir).unwrap();
    let (other, other_commits) = {
        let other = TestRepo::new();
        other.write("lib/x.rs", "other bytes\n");
        let c = other.commit_all("other");
        (other, vec![c])
    };
    let other_git = open(&other);
    let (lib, _) = owned(&["lib"], &[]);
    drop(Trees::cached(&other_git, &dir).of_commit(
        &other_git,
        Oid::from_hex(&other_commits[0]).unwrap(),
        &inputs(&lib, &touched),
    ));
    let theirs = cache_is_true(&other, &blob_cache(&dir));
    let mut trees = Trees::cached(&git, &dir);
    let fp = trees
        .of_commit(&git, id, &inputs(&sources, &touched))
        .unwrap();
    assert_eq!(digest(&fp), expected);
    drop(trees);
    let held = cache_is_true(&repo, &blob_cache(&dir));
    assert!(held.is_superset(&blobs) && held.is_superset(&theirs));
}

/// A plan of checks `a`, `b`, `c` and `d`, each over its own directory of
/// `files` files, for `gate verify`: each attaches its receipt to HEAD
/// through the blob cache.
fn checks_of(files: usize) -> TestRepo {
    let repo = TestRepo::new();
    repo.write(
        ".gate/policy.yaml",
        "version: 1\nbinding: off\nscope: off\nprovenance:\n  mode: off\n  merges: refuse\nreceipts:\n  mode: advisory\nbrief:\n  mode: off\n",
    );
    let mut plan = String::from("checks:\n");
    for check in ["a", "b", "c", "d"] {
        plan.push_str(&format!(
            "  - id: {check}\n    command: \"true\"\n    sources: [{check}]\n"
        ));
        for i in 0..files {
            repo.write(&format!("{check}/f{i}.txt"), format!("{check} {i}\n"));
        }
    }
    repo.write(".gate/plan.yaml", plan);
    repo.commit_all("four checks");
    repo
}

fn gate_verify(repo: &TestRepo, check: &str, envs: &[(&str, &str)]) -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin!("gate"));
    cmd.current_dir(repo.path())
        .args(["verify", check])
        .env_clear()
        .envs(crate::support::git_env())
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", repo.scratch("home"))
        .envs(envs.iter().copied())
        .stdin(std::process::Stdio::null());
    cmd
}

#[test]
fn concurrent_gate_processes_filling_the_cache_lose_nothing() {
    let repo = checks_of(300);
    let head = repo.head();
    let cache = repo.path().join(".git/gate/cache");
    let wanted: BTreeSet<String> = blob_ids(&repo, &head, &["a", "b", "c", "d"]);
    for round in 0..3 {
        std::fs::remove_dir_all(&cache).ok();
        repo.git_may_fail(&["update-ref", "-d", "refs/notes/gate"]);
        let children: Vec<_> = ["a", "b", "c", "d"]
            .iter()
            .map(|check| gate_verify(&repo, check, &[]).output_later())
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "round {round}: {}",
                crate::fixture::show(&out)
            );
        }
        // Every blob either run hashed is there, true; nothing else is left.
        assert_eq!(
            cache_is_true(&repo, &blob_cache(&cache)),
            wanted,
            "round {round}"
        );
        let leftovers = crate::support::temporary_files_in(&cache);
        assert!(leftovers.is_empty(), "round {round}: {leftovers:?}");
    }
}

/// Spawn with its output captured.
trait OutputLater {
    fn output_later(&mut self) -> std::process::Child;
}

impl OutputLater for std::process::Command {
    fn output_later(&mut self) -> std::process::Child {
        self.stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    }
}

#[test]
fn the_blob_cache_stays_within_its_bound() {
    let repo = checks_of(50);
    let cache = repo.path().join(".git/gate/cache");
    let bound = [("GATE_TEST_BLOB_CACHE_MAX", "60")];
    let head = repo.head();
    for (check, held) in [("a", 50), ("b", 60), ("c", 60), ("d", 60)] {
        let out = gate_verify(&repo, check, &bound).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", crate::fixture::show(&out));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("receipt attached to commit"),
            "{}",
            crate::fixture::show(&out)
        );
        let ids = cache_is_true(&repo, &blob_cache(&cache));
        assert_eq!(ids.len(), held, "{check}");
        // The latest run's blobs are the ones kept.
        assert!(
            ids.is_superset(&blob_ids(&repo, &head, &[check])),
            "{check}"
        );
    }
    // Without the test's bound: all 200 fit.
    for check in ["a", "b", "c", "d"] {
        let out = gate_verify(&repo, check, &[]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", crate::fixture::show(&out));
    }
    assert_eq!(cache_is_true(&repo, &blob_cache(&cache)).len(), 200);
}

/// `gate verify` attaches through the cache: a second run on the same HEAD
/// hashes no blob, so it writes no cache.
#[test]
fn a_second_verify_of_the_same_commit_hashes_no_blob() {
    let repo = checks_of(50);
    let cache = blob_cache(&repo.path().join(".git/gate/cache"));
    let out = gate_verify(&repo, "a", &[]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", crate::fixture::show(&out));
    let written = std::fs::metadata(&cache).unwrap().modified().unwrap();
    let bytes = std::fs::read(&cache).unwrap();
    crate::support::tick();
    let out = gate_verify(&repo, "a", &[]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", crate::fixture::show(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("receipt attached to commit"),
        "{}",
        crate::fixture::show(&out)
    );
    assert_eq!(
        std::fs::metadata(&cache).unwrap().modified().unwrap(),
        written
    );
    assert_eq!(std::fs::read(&cache).unwrap(), bytes);
}

/// `gate verify` fingerprints the sources before and after the run; when
/// nothing changed, the second takes every hash from the stat cache the
/// first wrote, reads nothing, and so leaves that cache as it was (the
/// check's command copies it aside while it runs).
#[test]
fn verify_reads_the_sources_once() {
    let repo = checks_of(200);
    repo.write(".gitignore", "ctl/\n");
    repo.write(
        ".gate/plan.yaml",
        "checks:\n  - id: a\n    command: \"mkdir -p ctl && cp .git/gate/cache/fingerprint-*.cache ctl/seen.cache\"\n    sources: [a]\n",
    );
    repo.commit_all("copy the stat cache aside");
    // Settled before the first fingerprint's stamp: every entry is kept.
    crate::support::tick();
    let out = gate_verify(&repo, "a", &[]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", crate::fixture::show(&out));
    let caches: Vec<PathBuf> = std::fs::read_dir(repo.path().join(".git/gate/cache"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("fingerprint-")
        })
        .collect();
    assert_eq!(caches.len(), 1, "{caches:?}");
    let seen = std::fs::read(repo.path().join("ctl/seen.cache")).unwrap();
    assert_eq!(
        std::fs::read(&caches[0]).unwrap(),
        seen,
        "rewritten after the run"
    );
}

/// A blob that cannot be read is an error, the first one in path order
/// whatever thread read it; unless the byte limit is passed before it; or
/// the cache knows it (an id's bytes are the id's, wherever they went).
#[test]
fn a_missing_blob_is_the_first_in_path_order_unless_the_limit_or_the_cache_comes_first() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = TestRepo::new();
    for i in 0..100 {
        repo.write(&format!("d/f{i:03}"), format!("file {i}\n"));
    }
    let tip = repo.commit_all("a hundred files");
    let git = open(&repo);
    let dir = cache_dir(&repo);
    let id = Oid::from_hex(&tip).unwrap();
    let (sources, touched) = owned(&["d"], &[]);
    let before = of_tree(&git, id, &inputs(&sources, &touched)).unwrap();
    drop(Trees::cached(&git, &dir).of_commit(&git, id, &inputs(&sources, &touched)));
    let blob = |path: &str| {
        repo.git(&["rev-parse", &format!("HEAD:{path}")])
            .trim()
            .to_owned()
    };
    let (first, second) = (blob("d/f040"), blob("d/f070"));
    for gone in [&first, &second] {
        std::fs::remove_file(
            repo.path()
                .join(".git/objects")
                .join(&gone[..2])
                .join(&gone[2..]),
        )
        .unwrap();
    }
    let git = open(&repo);
    let err = of_tree(&git, id, &inputs(&sources, &touched)).unwrap_err();
    assert!(err.to_string().contains(first.as_str()), "{err}");
    let mut cold = Trees::in_memory(&git);
    let err = cold
        .of_commit(&git, id, &inputs(&sources, &touched))
        .unwrap_err();
    assert!(err.to_string().contains(first.as_str()), "{err}");
    // The limit passed at d/f000 (8 bytes): answered before the missing blob.
    let limited = Inputs {
        max_bytes: 7,
        ..inputs(&sources, &touched)
    };
    assert_eq!(
        of_tree(&git, id, &limited).unwrap(),
        Fingerprint::Unavailable {
            reason: Unavailable::TooManyBytes { limit: 7 },
            path: None
        }
    );
    // The cache holds both: the answer stands.
    let mut warm = Trees::cached(&git, &dir);
    assert_eq!(
        warm.of_commit(&git, id, &inputs(&sources, &touched))
            .unwrap(),
        before
    );
    assert_eq!(warm.stats().hashed, 0);
}
