//! What a merge changes itself (decision 0023): every path where the merge
//! is not what a clean merge of its parents gives. The oracle is git's own
//! merge, `git merge-tree --write-tree`, over generated histories with
//! clean and evil merges mixed in; and `gate check --range` end to end.

use std::collections::{BTreeMap, BTreeSet};

use gate::git::Repo;

use crate::git_layer::oid;
use crate::provenance::{assert_exit, check_range, findings, json, task_repo};
use crate::support::{Rng, TestRepo, nul_fields};

/// A path's entry in a tree: mode and id.
type Entry = (Vec<u8>, Vec<u8>);

/// Every file-level entry of `treeish` (`git ls-tree -r`).
fn entries(repo: &TestRepo, treeish: &str) -> BTreeMap<Vec<u8>, Entry> {
    nul_fields(&repo.git_bytes(&["ls-tree", "-r", "-z", treeish]))
        .into_iter()
        .map(|line| {
            let tab = line.iter().position(|&b| b == b'\t').expect("a tab");
            let meta: Vec<&[u8]> = line[..tab].split(|&b| b == b' ').collect();
            (
                line[tab + 1..].to_vec(),
                (meta[0].to_vec(), meta[2].to_vec()),
            )
        })
        .collect()
}

/// The paths where `a` and `b` differ (`git diff-tree -r --no-renames`).
fn differing(repo: &TestRepo, a: &str, b: &str) -> BTreeSet<Vec<u8>> {
    nul_fields(&repo.git_bytes(&["diff-tree", "-r", "-z", "--name-only", "--no-renames", a, b]))
        .into_iter()
        .collect()
}

/// What git's merge says merge `commit` made itself: the paths where its
/// tree differs from `git merge-tree --write-tree` of its parents (an
/// octopus merged in turn, each parent onto the merge of those before it,
/// as git's octopus strategy does), and the paths both sides changed
/// differently since their merge base, which gate, reading no blob, always
/// gives to the merge (a content merge is the merge's work). `None` when
/// git's merge conflicts: there is no clean merge to compare with. With
/// the number of paths both sides changed.
fn git_own(repo: &TestRepo, commit: &str) -> Option<(BTreeSet<Vec<u8>>, usize)> {
    let line = repo.git(&["rev-list", "--parents", "-n", "1", commit]);
    let parents: Vec<&str> = line.split_whitespace().skip(1).collect();
    assert!(parents.len() > 1, "{commit} is a merge");
    let mut running = parents[0].to_string();
    let mut contended = BTreeSet::new();
    let mut tree = String::new();
    for (k, parent) in parents.iter().enumerate().skip(1) {
        let bases = repo.git(&["merge-base", "--all", &running, parent]);
        let bases: Vec<&str> = bases.lines().collect();
        assert_eq!(bases.len(), 1, "the generator makes no criss-cross merge");
        let (b, ours, theirs) = (
            entries(repo, bases[0]),
            entries(repo, &running),
            entries(repo, parent),
        );
        let all: BTreeSet<&Vec<u8>> = b.keys().chain(ours.keys()).chain(theirs.keys()).collect();
        for path in all {
            let (b, o, t) = (b.get(path), ours.get(path), theirs.get(path));
            if o != b && t != b && o != t {
                contended.insert(path.clone());
            }
        }
        let out = repo.git_may_fail(&["merge-tree", "--write-tree", &running, parent]);
        if !out.status.success() {
            return None;
        }
        tree = String::from_utf8_lossy(&out.stdout).trim().to_string();
        // The merge so far as a commit, so the next parent's merge base is
        // found against every parent before it.
        let mut args = vec!["commit-tree", &tree, "-m", "merged so far"];
        for p in &parents[..=k] {
            args.extend(["-p", p]);
        }
        running = repo.git(&args).trim().to_string();
    }
    let mut own = differing(repo, &tree, commit);
    let both = contended.len();
    own.extend(contended);
    Some((own, both))
}

/// Lines of the text files: main edits the lines `≡ 0 (mod 4)`, the side
/// branches those `≡ 2`, so their edits of one file are never adjacent and
/// git merges them without a conflict.
const LINES: usize = 12;

/// The kinds of merge the generator makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Flavor {
    /// `git merge --no-ff`: no change of its own (or a conflict resolution).
    Clean,
    /// The side's change of a file taken back in the merge (ours kept).
    RevertsSide,
    /// A file set to its version in an old commit of main.
    OldVersion,
    /// A file added by the merge itself.
    AddsFile,
    /// An octopus of two or three branches.
    Octopus,
    /// An octopus dropping one branch's change.
    OctopusDrops,
    /// A "merge" of an old ancestor of main, keeping main's tree.
    AncestorKept,
    /// A "merge" of an old ancestor of main, taking the ancestor's tree.
    AncestorTaken,
    /// `git merge --no-ff` of a branch main is an ancestor of.
    Descendant,
}

struct History<'a> {
    repo: &'a TestRepo,
    rng: Rng,
    n: u64,
    /// The text files of the root commit (never deleted or renamed).
    files: Vec<String>,
}

impl History<'_> {
    fn tick(&mut self) -> u64 {
        self.n += 1;
        self.n
    }

    /// Replace a line of `file` that `side` may edit.
    fn edit(&mut self, file: &str, side: bool) {
        let text = std::fs::read_to_string(self.repo.abs(file.as_bytes())).expect("a text file");
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        let at = 4 * self.rng.below(LINES / 4) + if side { 2 } else { 0 };
        let n = self.tick();
        lines[at] = format!("line {at} of {file}, changed {n}");
        self.repo.write(file, lines.join("\n") + "\n");
    }

    /// One commit of one to three changes: edits of the shared files, a new
    /// file, a new file renamed or deleted, a mode change.
    fn commit(&mut self, side: bool) -> String {
        for _ in 0..1 + self.rng.below(3) {
            match self.rng.below(5) {
                0 | 1 => {
                    let file = self.files[self.rng.below(self.files.len())].clone();
                    self.edit(&file, side);
                }
                2 => {
                    // A file of its own, added then renamed or deleted in
                    // a later commit by no one else.
                    let n = self.tick();
                    let path = format!("{}/new{n}.txt", ["a", "b/c", "d"][n as usize % 3]);
                    self.repo.write(&path, format!("new file {n}\n"));
                    self.repo.commit_all(&format!("add {path}"));
                    if self.rng.chance(50) {
                        self.repo.git(&["mv", &path, &format!("{path}.moved")]);
                    } else {
                        self.repo.remove(path.as_bytes());
                    }
                }
                3 => {
                    let file = self.files[self.rng.below(self.files.len())].clone();
                    let exec = self
                        .repo
                        .git(&["ls-files", "-s", &file])
                        .starts_with("100755");
                    self.repo.chmod(file.as_bytes(), !exec);
                }
                _ => {
                    let n = self.tick();
                    self.repo
                        .write(&format!("d/added{n}.txt"), format!("added {n}\n"));
                }
            }
        }
        let n = self.tick();
        self.repo.commit_all(&format!("commit {n}"))
    }

    /// A branch from main's commit `back` steps down, with `commits` of its own.
    fn branch(&mut self, name: &str, back: usize, commits: usize) {
        self.repo
            .git(&["checkout", "-q", "-b", name, &format!("main~{back}")]);
        for _ in 0..commits {
            self.commit(true);
        }
        self.repo.git(&["checkout", "-q", "main"]);
    }

    /// `git merge --no-ff` of `branches`, left uncommitted when `commit` is
    /// false; a conflict is committed as the work tree stands.
    fn merge(&mut self, branches: &[&str], commit: bool) -> bool {
        let mut args = vec!["merge", "-q", "--no-ff", "--no-edit"];
        if !commit {
            args.push("--no-commit");
        }
        args.extend_from_slice(branches);
        let out = self.repo.git_may_fail(&args);
        if !out.status.success() && branches.len() > 1 {
            // An octopus refuses a conflict: give it up.
            self.repo.git_may_fail(&["merge", "--abort"]);
            self.repo.git(&["reset", "-q", "--hard", "main"]);
            return false;
        }
        if !out.status.success() && commit {
            self.repo.git(&["add", "-A"]);
            self.repo.git(&["commit", "-q", "--no-edit"]);
        }
        true
    }

    fn conclude(&self) -> String {
        self.repo.git(&["add", "-A"]);
        self.repo.git(&["commit", "-q", "--no-edit"]);
        self.repo.head()
    }

    /// One round: main moves on, a branch is made and merged in some way.
    fn round(&mut self, flavor: Flavor) -> Option<String> {
        let repo = self.repo;
        match flavor {
            Flavor::Clean | Flavor::RevertsSide | Flavor::OldVersion | Flavor::AddsFile => {
                let back = self.rng.below(2);
                let commits = 1 + self.rng.below(3);
                self.branch("side", back, commits);
                self.commit(false);
                let base = repo.git(&["merge-base", "main", "side"]);
                let changed: Vec<Vec<u8>> =
                    differing(repo, base.trim(), "side").into_iter().collect();
                if flavor == Flavor::Clean {
                    self.merge(&["side"], true);
                } else {
                    self.merge(&["side"], false);
                    match flavor {
                        Flavor::RevertsSide if !changed.is_empty() => {
                            let path = &changed[self.rng.below(changed.len())];
                            let path = String::from_utf8(path.clone()).expect("ASCII");
                            if repo.git_ok(&["cat-file", "-e", &format!("HEAD:{path}")]) {
                                repo.git(&["checkout", "HEAD", "--", &path]);
                            } else {
                                repo.git(&["rm", "-q", "-f", "--", &path]);
                            }
                        }
                        Flavor::OldVersion => {
                            let file = self.files[self.rng.below(self.files.len())].clone();
                            repo.git(&["checkout", "main~4", "--", &file]);
                        }
                        Flavor::RevertsSide => {}
                        _ => {
                            let n = self.tick();
                            repo.write(&format!("d/by-the-merge{n}.txt"), "the merge's own\n");
                        }
                    }
                    self.conclude();
                }
                repo.git(&["branch", "-q", "-D", "side"]);
            }
            Flavor::Octopus | Flavor::OctopusDrops => {
                // Each branch edits files of its own, so the octopus is clean.
                let names = ["o1", "o2", "o3"];
                let count = 2 + self.rng.below(2);
                for (i, name) in names[..count].iter().enumerate() {
                    let files: Vec<String> =
                        self.files.iter().skip(i).step_by(count).cloned().collect();
                    let back = self.rng.below(2);
                    self.repo
                        .git(&["checkout", "-q", "-b", name, &format!("main~{back}")]);
                    let n = self.tick();
                    let file = &files[n as usize % files.len()];
                    self.edit(file, true);
                    self.repo.commit_all(&format!("{name} {n}"));
                    self.repo.git(&["checkout", "-q", "main"]);
                }
                let merged = self.merge(&names[..count], flavor == Flavor::Octopus);
                if merged && flavor == Flavor::OctopusDrops {
                    let last = names[count - 1];
                    let base = repo.git(&["merge-base", "HEAD", last]);
                    let changed: Vec<Vec<u8>> =
                        differing(repo, base.trim(), last).into_iter().collect();
                    let path = String::from_utf8(changed[0].clone()).expect("ASCII");
                    repo.git(&["checkout", "HEAD", "--", &path]);
                    self.conclude();
                }
                for name in &names[..count] {
                    repo.git(&["branch", "-q", "-D", name]);
                }
                if !merged {
                    return None;
                }
            }
            Flavor::AncestorKept | Flavor::AncestorTaken => {
                let old = repo.rev("main~3");
                let tree = if flavor == Flavor::AncestorKept {
                    "main^{tree}".to_string()
                } else {
                    format!("{old}^{{tree}}")
                };
                let merge = repo.git(&[
                    "commit-tree",
                    &tree,
                    "-p",
                    "main",
                    "-p",
                    &old,
                    "-m",
                    "merge an old ancestor",
                ]);
                repo.git(&["reset", "-q", "--hard", merge.trim()]);
            }
            Flavor::Descendant => {
                self.branch("ahead", 0, 2);
                self.merge(&["ahead"], true);
                repo.git(&["branch", "-q", "-D", "ahead"]);
            }
        }
        Some(repo.head())
    }
}

const FLAVORS: &[Flavor] = &[
    Flavor::Clean,
    Flavor::Clean,
    Flavor::RevertsSide,
    Flavor::OldVersion,
    Flavor::AddsFile,
    Flavor::Octopus,
    Flavor::OctopusDrops,
    Flavor::AncestorKept,
    Flavor::AncestorTaken,
    Flavor::Descendant,
];

/// A history of `rounds` merges of random flavors on a main line that
/// moves on between them; each merge with its flavor.
fn merge_history(repo: &TestRepo, seed: u64, rounds: usize) -> Vec<(String, Flavor)> {
    let mut h = History {
        repo,
        rng: Rng::new(seed),
        n: 0,
        files: Vec::new(),
    };
    for dir in ["a", "b/c", "d"] {
        for i in 0..3 {
            let file = format!("{dir}/f{i}.txt");
            let text: String = (0..LINES)
                .map(|l| format!("line {l} of {file}\n"))
                .collect();
            repo.write(&file, text);
            h.files.push(file);
        }
    }
    repo.commit_all("root");
    for _ in 0..5 {
        h.commit(false);
    }
    let mut merges = Vec::new();
    // Every flavor once, then random ones.
    for round in 0..rounds {
        let flavor = match FLAVORS.get(round) {
            Some(&f) => f,
            None => *h.rng.pick(FLAVORS),
        };
        if let Some(merge) = h.round(flavor) {
            merges.push((merge, flavor));
        }
        h.commit(false);
    }
    merges
}

fn paths(changes: &[gate::git::Change]) -> BTreeSet<Vec<u8>> {
    changes.iter().map(|c| c.path.as_bytes().to_vec()).collect()
}

#[test]
fn a_merges_own_paths_are_where_it_is_not_gits_clean_merge() {
    let seeds: Vec<u64> = match std::env::var("GATE_TEST_SEEDS") {
        Ok(range) => {
            let (a, b) = range.split_once("..").expect("a..b");
            (a.parse().expect("seed")..b.parse().expect("seed")).collect()
        }
        Err(_) => vec![0x3e59e, 27],
    };
    for seed in seeds {
        let repo = TestRepo::new();
        let merges = merge_history(&repo, seed, 24);
        let gate = Repo::discover(repo.path()).expect("a repository");
        let mut compared: BTreeMap<Flavor, usize> = BTreeMap::new();
        let (mut caught, mut contended, mut conflicted) = (0, 0, 0);
        for (merge, flavor) in &merges {
            let own = paths(&gate.merge_changes(oid(merge)).expect("merge changes"));
            let Some((want, both)) = git_own(&repo, merge) else {
                conflicted += 1;
                continue;
            };
            contended += both;
            assert_eq!(
                own, want,
                "seed {seed}: {flavor:?} merge {merge}: gate's own paths, git's"
            );
            *compared.entry(*flavor).or_default() += 1;
            // What git's combined diff (the old rule) missed.
            let combined = paths(&gate.combined_changes(oid(merge)).expect("combined"));
            assert!(
                combined.is_subset(&own),
                "{merge}: the old rule's paths stay"
            );
            caught += own.difference(&combined).count();
        }
        for flavor in FLAVORS {
            assert!(
                compared.contains_key(flavor),
                "seed {seed}: no {flavor:?} merge compared: {compared:?}"
            );
        }
        assert!(caught > 0, "seed {seed}: no merge the old rule passed");
        assert!(contended > 0, "seed {seed}: no path both sides changed");
        eprintln!(
            "seed {seed}: {compared:?}, {conflicted} conflicted; {caught} paths the combined diff missed, {contended} both sides changed"
        );
    }
}

/// Upstream fixes a file outside the task's scope; the task branch merges
/// upstream and keeps its own old version: the fix is dropped, and the
/// merge's result equals a parent (the task's side) at that path, so git's
/// combined diff — the rule before — saw nothing. The merge made it:
/// refused, as the merge's own change outside T-1's scope.
#[test]
fn a_merge_dropping_upstreams_fix_outside_its_scope_is_refused() {
    let (repo, base) = task_repo("required", "inspect", &["upstream: refs/heads/main"]);
    repo.git(&["checkout", "-q", "-b", "work"]);
    repo.write("src/b.rs", "b\n");
    repo.commit_all("work\n\nTask: T-1");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("docs/x.md", "x, with upstream's fix\n");
    repo.commit_all("upstream: the fix");
    repo.git(&["checkout", "-q", "work"]);

    // A clean merge takes the fix: nothing of the merge's own.
    repo.git(&["branch", "clean", "work"]);
    repo.git(&["checkout", "-q", "clean"]);
    repo.git(&["merge", "-q", "--no-ff", "--no-edit", "main"]);
    let out = check_range(&repo, &format!("{base}..clean"), &[]);
    assert_exit(&out, 0);
    assert!(
        findings(&json(&out))
            .iter()
            .all(|f| f["cause"] == "imported_commit"),
        "{}",
        json(&out)
    );

    // The same merge, the fix taken back.
    repo.git(&["checkout", "-q", "work"]);
    repo.git(&["merge", "-q", "--no-ff", "--no-commit", "main"]);
    repo.git(&["checkout", "HEAD", "--", "docs/x.md"]);
    repo.git(&["commit", "-q", "--no-edit"]);
    let merge = repo.head();
    let gate = Repo::discover(repo.path()).expect("a repository");
    assert!(
        gate.combined_changes(oid(&merge))
            .expect("combined")
            .is_empty(),
        "the rule before saw nothing of the merge's own"
    );
    let out = check_range(&repo, &format!("{base}..work"), &[]);
    assert_exit(&out, 1);
    let doc = json(&out);
    let refused: Vec<serde_json::Value> = findings(&doc)
        .into_iter()
        .filter(|f| f["cause"] != "imported_commit")
        .collect();
    assert_eq!(refused.len(), 1, "{doc:#}");
    let f = &refused[0];
    assert_eq!(f["cause"], "path_outside_scope");
    assert_eq!(f["commit"], merge);
    assert_eq!(f["path"], "docs/x.md");
    assert_eq!(f["change"], "modified");
    assert_eq!(f["task"], "T-1");
    let message = f["message"].as_str().expect("a message");
    assert!(
        message.ends_with("(changed by the merge itself)"),
        "{message}"
    );

    // A "merge" of an old ancestor of the clean merge, taking the
    // ancestor's tree: every path set back is the merge's own (src/b.rs is
    // in scope; docs/x.md, upstream's fix undone, is not).
    let old = repo.rev("main~1");
    let merge = repo.git(&[
        "commit-tree",
        &format!("{old}^{{tree}}"),
        "-p",
        "clean",
        "-p",
        &old,
        "-m",
        "merge an old ancestor",
    ]);
    let merge = merge.trim();
    let own: Vec<String> = gate
        .merge_changes(oid(merge))
        .expect("merge changes")
        .iter()
        .map(|c| format!("{} {}", c.kind.as_str(), c.path))
        .collect();
    assert_eq!(own, ["modified docs/x.md", "deleted src/b.rs"]);
    assert!(
        gate.combined_changes(oid(merge))
            .expect("combined")
            .is_empty()
    );
    let out = check_range(&repo, &format!("{base}..{merge}"), &[]);
    assert_exit(&out, 1);
    let doc = json(&out);
    let refused: Vec<(String, String)> = findings(&doc)
        .iter()
        .filter(|f| f["cause"] != "imported_commit")
        .map(|f| {
            let commit = f["commit"].as_str().expect("commit");
            (
                f["cause"].as_str().expect("cause").to_string(),
                format!("{} {}", &commit[..12], f["path"]),
            )
        })
        .collect();
    assert_eq!(
        refused,
        [(
            "path_outside_scope".to_string(),
            format!("{} \"docs/x.md\"", &merge[..12])
        )],
        "{doc:#}"
    );
}

/// Names that sort apart by kind (git orders a directory as its name and a
/// `/`: `g` < `g-x` < `g/` < `g0`): a file turned into a directory on one
/// side, a neighbour changed on the other, and the merge's own edits beside
/// them. The side-by-side walk meets `g` twice, once per kind; its answer is
/// git's, for the merge's own paths and for the combined diff.
#[test]
fn names_a_directory_and_a_file_share_are_judged_as_git_judges_them() {
    let repo = TestRepo::new();
    for f in ["g", "g-x", "g0", "h/a", "h-b"] {
        repo.write(f, format!("{f}\n"));
    }
    repo.commit_all("base");
    repo.git(&["checkout", "-q", "-b", "side"]);
    repo.write("g-x", "side\n");
    repo.remove(b"h");
    repo.write("h", "h is a file now\n");
    repo.commit_all("side");
    repo.git(&["checkout", "-q", "main"]);
    repo.remove(b"g");
    repo.write("g/inner", "a directory now\n");
    repo.write("g0", "main\n");
    repo.commit_all("main");
    for evil in [false, true] {
        repo.git(&["checkout", "-q", "main"]);
        repo.git(&["checkout", "-q", "-B", "m"]);
        repo.git(&["merge", "-q", "--no-commit", "--no-ff", "side"]);
        if evil {
            repo.write("g-x", "the merge's own\n");
            repo.write("g/inner2", "the merge's own\n");
            repo.write("h-b", "the merge's own\n");
        }
        let merge = repo.commit_all("merge");
        let gate = gate::git::Repo::discover(repo.path()).unwrap();
        let id = gate::git::Oid::from_hex(&merge).unwrap();
        let own = paths(&gate.merge_changes(id).unwrap());
        let (want, _) = git_own(&repo, &merge).expect("a clean merge exists");
        assert_eq!(own, want, "evil: {evil}");
        let combined = paths(&gate.combined_changes(id).unwrap());
        let git_c = crate::git_layer::git_combined_paths(&repo, &merge);
        assert_eq!(combined, git_c, "evil: {evil}");
        assert_eq!(own.is_empty(), !evil, "evil: {evil}");
    }
}
