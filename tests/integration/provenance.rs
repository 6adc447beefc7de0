//! `gate check --range`: commit-range provenance, with the git CLI as the
//! oracle for which paths every commit changed.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Output;

use serde_json::Value;

use crate::fixture::show;
use crate::git_layer::{Generator, Row, SPECIAL_NAMES, generated_history, git_diff};
use crate::golden::{assert_golden, transcript};
use crate::support::{Rng, TestRepo};

// ---------------------------------------------------------------------------
// Scenery shared with the pre-push tests.

/// Write `.gate/tasks/<id>.md`: an active task with `scope` and `baseline`.
pub fn write_task(repo: &TestRepo, id: &str, scope: &[&str], baseline: &str) {
    let record = gate::task::TaskRecord {
        schema: gate::task::TASK_SCHEMA.into(),
        id: id.into(),
        status: gate::task::TaskStatus::Active,
        created_at: "2026-01-01T00:00:00Z".into(),
        created_by: "gate start".into(),
        operator: "Test Operator".into(),
        baseline: baseline.into(),
        scope: scope.iter().map(|s| s.to_string()).collect(),
        issue: None,
        intent: None,
        exemption: None,
        pins: Default::default(),
    };
    let body = gate::task::format::render_new_body(&format!("Work on {id}.\n"));
    repo.write(
        &format!(".gate/tasks/{id}.md"),
        gate::task::render(&record, &body),
    );
}

/// Write `.gate/policy.yaml`: scope and provenance at `mode`, the rest off,
/// and `extra` lines appended to the provenance section.
pub fn write_policy(repo: &TestRepo, mode: &str, merges: &str, extra: &[&str]) {
    let mut provenance = format!("provenance:\n  mode: {mode}\n  merges: {merges}\n");
    for line in extra {
        provenance.push_str(&format!("  {line}\n"));
    }
    repo.write(
        ".gate/policy.yaml",
        format!(
            "version: 1\nbinding: off\nscope: {mode}\n{provenance}receipts:\n  mode: off\nbrief:\n  mode: off\n"
        ),
    );
}

/// Make `id` the worktree's active task.
pub fn activate(repo: &TestRepo, id: &str) {
    let out = repo.gate().args(["task", "switch", id]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

/// Parse a `--json` report, with the output in the panic message.
pub fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not a JSON report ({e}):\n{}", show(out)))
}

/// Every finding of every check of a report.
pub fn findings(doc: &Value) -> Vec<Value> {
    doc["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .flat_map(|c| c["findings"].as_array().expect("findings").clone())
        .collect()
}

/// The causes of a report's findings, in order.
pub fn causes(doc: &Value) -> Vec<String> {
    findings(doc)
        .iter()
        .map(|f| f["cause"].as_str().expect("cause").to_string())
        .collect()
}

/// The exact bytes of a finding's path (`path_hex` when not UTF-8).
pub fn path_bytes(f: &Value) -> Vec<u8> {
    match f.get("path_hex").and_then(Value::as_str) {
        Some(hex) => (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
            .collect(),
        None => f["path"].as_str().expect("path").as_bytes().to_vec(),
    }
}

/// Assert no panic and an exit code, showing everything otherwise.
pub fn assert_exit(out: &Output, code: i32) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{}", show(out));
    assert_eq!(out.status.code(), Some(code), "{}", show(out));
}

/// `gate check --range RANGE --json` plus `extra` arguments.
pub fn check_range(repo: &TestRepo, range: &str, extra: &[&str]) -> Output {
    let mut args = vec!["check", "--range", range, "--json"];
    args.extend_from_slice(extra);
    let policy = policy_commit(repo.path());
    if let Some(policy) = &policy {
        args.extend_from_slice(&["--policy-from", policy]);
    }
    repo.gate().args(&args).output().unwrap()
}

/// The work tree's `.gate/policy.yaml` (if any) as a commit of its own, on
/// no branch, for `--policy-from`: a range is judged by its base's policy
/// (docs/trust.md), and these tests vary the policy without committing it.
pub fn policy_commit(dir: &std::path::Path) -> Option<String> {
    if !dir.join(".gate/policy.yaml").is_file() {
        return None;
    }
    let index = tempfile::NamedTempFile::new().expect("a temporary index");
    let git = |args: &[&str]| {
        let mut cmd = crate::support::git_command(dir);
        cmd.args(args).env("GIT_INDEX_FILE", index.path());
        let out = cmd.output().expect("run git");
        let out = crate::support::check(&cmd, out);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let blob = git(&["hash-object", "-w", ".gate/policy.yaml"]);
    std::fs::remove_file(index.path()).expect("git makes the index itself");
    git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("100644,{blob},.gate/policy.yaml"),
    ]);
    let tree = git(&["write-tree"]);
    Some(git(&["commit-tree", &tree, "-m", "the policy under test"]))
}

// ---------------------------------------------------------------------------
// The oracle.

/// Narrow scopes for the tasks the generated trailers name (`Task: T-<n>`,
/// scope `SCOPES[n % len]`). All are directory prefixes, so the oracle can
/// decide membership without gate's glob engine.
const SCOPES: &[&[&str]] = &[
    &["src/**"],
    &["docs/**", "日本/**"],
    &["dir with space/**", "shared.txt"],
    &["\u{e9}/**", "o1/**"],
    &[],
];

/// The scope of the task commits without a trailer fall to (`--task`).
const DEFAULT_SCOPE: &[&str] = &["src", "other/**"];
const DEFAULT_TASK: &str = "T-default";

fn in_scope(path: &[u8], scope: &[&str]) -> bool {
    scope.iter().any(|pattern| {
        let dir = pattern.strip_suffix("/**").unwrap_or(pattern).as_bytes();
        path.starts_with(dir) && (path.len() == dir.len() || path[dir.len()] == b'/')
    })
}

/// The scope of a task id the oracle knows.
fn scope_of(task: &str) -> &'static [&'static str] {
    if task == DEFAULT_TASK {
        return DEFAULT_SCOPE;
    }
    let n: usize = task
        .strip_prefix("T-")
        .and_then(|n| n.parse().ok())
        .expect("a generated task id");
    SCOPES[n % SCOPES.len()]
}

/// `(commit, path, change)`.
type Triple = (String, Vec<u8>, String);

/// What git says about a range: for each commit its parents and its task
/// (git's own trailer parsing), then the triples outside scope.
struct Expected {
    /// Outside scope, change kinds from `-M100%` (exact renames) for
    /// ordinary commits, from the first parent's `--no-renames` diff for merges.
    triples: BTreeSet<Triple>,
    /// Outside scope, `(commit, path)` from similarity renames (`-M`).
    similar: BTreeSet<(String, Vec<u8>)>,
    /// Outside scope, from `--no-renames`, with gate's rename roles mapped
    /// back to deletions and additions.
    plain: BTreeSet<Triple>,
    merges: BTreeSet<String>,
    tasks: BTreeSet<String>,
}

fn role(letter: char) -> &'static str {
    match letter {
        'A' => "added",
        'D' => "deleted",
        'M' => "modified",
        'T' => "type_changed",
        other => panic!("unexpected status letter {other}"),
    }
}

/// Each row as `(path, role)`, both sides of a rename.
fn roles(rows: &[Row]) -> Vec<(Vec<u8>, &'static str)> {
    rows.iter()
        .flat_map(|(letter, path, from)| match (letter, from) {
            ('R', Some(from)) => vec![(from.clone(), "renamed_from"), (path.clone(), "renamed_to")],
            (l, _) => vec![(path.clone(), role(*l))],
        })
        .collect()
}

fn paths(rows: &[Row]) -> BTreeSet<Vec<u8>> {
    roles(rows).into_iter().map(|(p, _)| p).collect()
}

fn expected(repo: &TestRepo, range: &str, inspect: bool) -> Expected {
    let mut e = Expected {
        triples: BTreeSet::new(),
        similar: BTreeSet::new(),
        plain: BTreeSet::new(),
        merges: BTreeSet::new(),
        tasks: BTreeSet::new(),
    };
    let listing = repo.git(&[
        "log",
        "--format=%H %P%x09%(trailers:key=Task,valueonly=true,separator=%x2C)",
        range,
    ]);
    for line in listing.lines() {
        let (ids, trailer) = line.split_once('\t').expect("a tab");
        let mut ids = ids.split(' ').filter(|s| !s.is_empty());
        let commit = ids.next().expect("commit").to_string();
        let parents: Vec<&str> = ids.collect();
        let task = if trailer.is_empty() {
            DEFAULT_TASK.to_string()
        } else {
            trailer.to_string()
        };
        e.tasks.insert(task.clone());
        let scope = scope_of(&task);
        let outside = |p: &Vec<u8>| !in_scope(p, scope);
        if parents.len() > 1 {
            e.merges.insert(commit.clone());
            if !inspect {
                continue;
            }
            // The merge's own paths: where it is not what a clean merge of
            // its parents gives (decision 0023), from git's trees and merge
            // bases.
            for (path, role) in merge_own_roles(repo, &commit, &parents) {
                if outside(&path) {
                    let t = (commit.clone(), path.clone(), role.to_string());
                    e.triples.insert(t.clone());
                    e.plain.insert(t);
                    e.similar.insert((commit.clone(), path));
                }
            }
            continue;
        }
        let parent = parents.first().copied();
        for (path, role) in roles(&git_diff(repo, parent, &commit, "-M100%")) {
            if outside(&path) {
                e.triples.insert((commit.clone(), path, role.to_string()));
            }
        }
        for (path, role) in roles(&git_diff(repo, parent, &commit, "--no-renames")) {
            if outside(&path) {
                e.plain.insert((commit.clone(), path, role.to_string()));
            }
        }
        for path in paths(&git_diff(repo, parent, &commit, "-M")) {
            if outside(&path) {
                e.similar.insert((commit.clone(), path));
            }
        }
    }
    e
}

/// A tree's file-level entries (`git ls-tree -r`): path to (mode, id).
fn tree_entries(repo: &TestRepo, treeish: &str) -> BTreeMap<Vec<u8>, (String, String)> {
    crate::support::nul_fields(&repo.git_bytes(&["ls-tree", "-r", "-z", treeish]))
        .into_iter()
        .map(|line| {
            let tab = line.iter().position(|&b| b == b'\t').expect("a tab");
            let meta = String::from_utf8_lossy(&line[..tab]).into_owned();
            let mut meta = meta.split(' ');
            let mode = meta.next().expect("mode").to_string();
            let id = meta.nth(1).expect("id").to_string();
            (line[tab + 1..].to_vec(), (mode, id))
        })
        .collect()
}

/// The paths merge `commit` changed itself, as docs/provenance.md#merges
/// says, from git's trees and `git merge-base --all`: each parent after the
/// first merged in turn onto the parents before it; a path whose only
/// changer since the base is one side must be that side's, one both sides
/// changed alike must be that, and one they changed differently (or where
/// the bases disagree and the sides do too) is the merge's. Each with its
/// role against the clean merge's entry, else the first parent that has it.
fn merge_own_roles(
    repo: &TestRepo,
    commit: &str,
    parents: &[&str],
) -> Vec<(Vec<u8>, &'static str)> {
    type Value = Option<(String, String)>;
    let result = tree_entries(repo, commit);
    let sides: Vec<_> = parents.iter().map(|p| tree_entries(repo, p)).collect();
    let bases: Vec<Vec<_>> = (1..parents.len())
        .map(|k| {
            let mut args = vec!["merge-base", "--all", parents[k]];
            args.extend_from_slice(&parents[..k]);
            let out = repo.git_may_fail(&args);
            let ids = String::from_utf8_lossy(&out.stdout).into_owned();
            let trees: Vec<_> = ids.lines().map(|b| tree_entries(repo, b)).collect();
            // No common history: the empty tree.
            if trees.is_empty() {
                vec![BTreeMap::new()]
            } else {
                trees
            }
        })
        .collect();
    let mut all: BTreeSet<Vec<u8>> = result.keys().cloned().collect();
    for side in &sides {
        all.extend(side.keys().cloned());
    }
    let kind = |mode: &str| match mode {
        "120000" => 1,
        "160000" => 2,
        _ => 0,
    };
    let mut out = Vec::new();
    for path in all {
        let at = |tree: &BTreeMap<Vec<u8>, (String, String)>| -> Value { tree.get(&path).cloned() };
        let mut clean: Option<Value> = Some(at(&sides[0]));
        for (k, side) in sides.iter().enumerate().skip(1) {
            let (Some(ours), theirs) = (clean.clone(), at(side)) else {
                break;
            };
            let values: Vec<Value> = bases[k - 1].iter().map(at).collect();
            let agreed = values
                .iter()
                .all(|v| *v == values[0])
                .then(|| values[0].clone());
            clean = if ours == theirs {
                Some(ours)
            } else {
                match agreed {
                    Some(base) if ours == base => Some(theirs),
                    Some(base) if theirs == base => Some(ours),
                    _ => None,
                }
            };
        }
        let new = at(&result);
        if clean.as_ref() == Some(&new) {
            continue;
        }
        let old = clean.unwrap_or_else(|| sides.iter().find_map(at));
        let role = match (&old, &new) {
            (None, Some(_)) => "added",
            (Some(_), None) => "deleted",
            (Some((a, _)), Some((b, _))) if kind(a) != kind(b) => "type_changed",
            (Some(_), Some(_)) => "modified",
            (None, None) => unreachable!("a path someone has"),
        };
        out.push((path, role));
    }
    out
}

/// Run gate over `range` with `merges` and compare every finding with git;
/// the number of paths refused.
fn compare_with_git(repo: &TestRepo, range: &str, merges: &str) -> usize {
    let inspect = merges == "inspect";
    let e = expected(repo, range, inspect);
    let base = repo.rev(range.split_once("..").expect("a range").0);
    write_policy(repo, "required", merges, &[]);
    for task in &e.tasks {
        write_task(repo, task, scope_of(task), &base);
    }
    write_task(repo, DEFAULT_TASK, DEFAULT_SCOPE, &base);
    let out = check_range(repo, range, &["--task", DEFAULT_TASK]);
    let doc = json(&out);
    let mut got = BTreeSet::new();
    let mut merge_findings = BTreeSet::new();
    let mut empty_findings = BTreeSet::new();
    for f in findings(&doc) {
        let commit = f["commit"]
            .as_str()
            .expect("every finding names its commit")
            .to_string();
        match f["cause"].as_str().expect("cause") {
            "path_outside_scope" => {
                let triple = (
                    commit,
                    path_bytes(&f),
                    f["change"].as_str().expect("change").to_string(),
                );
                assert!(got.insert(triple.clone()), "reported twice: {triple:?}");
            }
            "merge_commit" => {
                merge_findings.insert(commit);
            }
            "empty_commit" => {
                assert_eq!(f["severity"], "warn", "{f:#}");
                empty_findings.insert(commit);
            }
            other => panic!("unexpected finding {other}: {f:#}"),
        }
    }
    let show_set = |s: &BTreeSet<Triple>| {
        s.iter()
            .map(|(c, p, k)| format!("{} {} {k}", &c[..12], gate::path::RepoPath::new(p.clone())))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let missing: BTreeSet<Triple> = e.triples.difference(&got).cloned().collect();
    let extra: BTreeSet<Triple> = got.difference(&e.triples).cloned().collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{range} ({merges}): gate and git differ\n--- git only:\n{}\n--- gate only:\n{}",
        show_set(&missing),
        show_set(&extra)
    );
    // The similarity view: the same (commit, path) pairs, both sides of renames.
    let got_pairs: BTreeSet<(String, Vec<u8>)> =
        got.iter().map(|(c, p, _)| (c.clone(), p.clone())).collect();
    assert_eq!(got_pairs, e.similar, "{range}: -M view");
    // The no-renames view: a rename is a deletion and an addition.
    let plain: BTreeSet<Triple> = got
        .iter()
        .map(|(c, p, k)| {
            let k = match k.as_str() {
                "renamed_from" => "deleted",
                "renamed_to" => "added",
                k => k,
            };
            (c.clone(), p.clone(), k.to_string())
        })
        .collect();
    assert_eq!(plain, e.plain, "{range}: --no-renames view");
    if inspect {
        assert!(merge_findings.is_empty());
    } else {
        assert_eq!(merge_findings, e.merges, "one merge_commit per merge");
    }
    // Every commit but a merge that git shows changing no path, and no
    // other, is an empty_commit (reported: a warning).
    let raw = repo.git(&[
        "log",
        "--no-merges",
        "--raw",
        "--no-renames",
        "--format=%x00%H",
        range,
    ]);
    let git_empty: BTreeSet<String> = raw
        .split('\0')
        .filter_map(|chunk| {
            let mut lines = chunk.lines();
            let commit = lines.next()?.trim().to_owned();
            (!commit.is_empty() && !lines.any(|l| l.starts_with(':'))).then_some(commit)
        })
        .collect();
    assert_eq!(empty_findings, git_empty, "{range}: empty commits");
    eprintln!(
        "{range} ({merges}): {} commits, {} merges, {} findings",
        repo.git(&["rev-list", "--count", range]).trim(),
        e.merges.len(),
        e.triples.len()
    );
    let expect_code = if e.triples.is_empty() && (inspect || e.merges.is_empty()) {
        0
    } else {
        1
    };
    assert_exit(&out, expect_code);
    e.triples.len()
}

fn seeds(default: &[u64]) -> Vec<u64> {
    match std::env::var("GATE_TEST_SEEDS") {
        // More histories on demand: GATE_TEST_SEEDS=1..40
        Ok(range) => {
            let (a, b) = range.split_once("..").expect("a..b");
            (a.parse().expect("seed")..b.parse().expect("seed")).collect()
        }
        Err(_) => default.to_vec(),
    }
}

/// A linear history: odd paths in the root, random changes of every kind,
/// most commits with a `Task:` trailer, a few without.
fn linear_history(seed: u64) -> TestRepo {
    let repo = TestRepo::new();
    let mut g = Generator::new(&repo, seed);
    for _ in 0..4 {
        g.add();
    }
    for (i, name) in SPECIAL_NAMES.iter().enumerate() {
        repo.write_at(name, format!("special {i}\n"));
    }
    repo.write("shared.txt", "base\n");
    repo.symlink(b"link", b"target-of-link");
    repo.commit_all("root");
    let mut rng = Rng::new(seed ^ 0x11);
    for round in 0..8 {
        g.random_commits(4);
        if rng.chance(60) {
            // A commit without a trailer: it falls to the default task.
            let name = SPECIAL_NAMES[rng.below(SPECIAL_NAMES.len())];
            let mut path = name.to_vec();
            while repo.abs(&path).is_dir() {
                path.extend_from_slice(b"/inner.txt");
            }
            repo.write_at(&path, format!("round {round}\n"));
            repo.commit_all(&format!("no trailer {round}"));
        }
    }
    repo
}

/// The first-parent commit `depth` steps above the oldest one.
fn early_base(repo: &TestRepo, depth: usize) -> String {
    let chain = repo.git(&["rev-list", "--first-parent", "--reverse", "main"]);
    chain.lines().nth(depth).expect("deep enough").to_string()
}

#[test]
fn linear_histories_agree_with_git() {
    for seed in seeds(&[7, 0x5eed]) {
        let repo = linear_history(seed);
        let base = early_base(&repo, seed as usize % 3);
        let n = compare_with_git(&repo, &format!("{base}..main"), "refuse");
        assert!(n > 10, "the oracle found too little: {n}");
        compare_with_git(&repo, &format!("{base}..main"), "inspect");
    }
}

#[test]
fn merge_histories_agree_with_git() {
    for seed in seeds(&[0x5eed_1234]) {
        let repo = generated_history(seed);
        let base = early_base(&repo, 0);
        let range = format!("{base}..main");
        let n = compare_with_git(&repo, &range, "inspect");
        assert!(n > 10, "the oracle found too little: {n}");
        compare_with_git(&repo, &range, "refuse");
        // A base further up: the side branches' forks are still inside.
        let base = early_base(&repo, 5);
        compare_with_git(&repo, &format!("{base}..{}", repo.head()), "inspect");
    }
}

/// A merge's own changes are decided path by path. Here the merge deletes
/// `x` (which differs from both parents) and keeps the side's `y`, a copy
/// of the old `x`: against the first parent that looks like an exact rename
/// `x → y`, but `y` is the side's work, not the merge's.
#[test]
fn a_merges_own_changes_are_paths_not_rename_pairs() {
    let repo = TestRepo::new();
    repo.write("x.txt", "the content of x\n");
    repo.write("keep.txt", "keep\n");
    repo.commit_all("base");
    repo.git(&["checkout", "-q", "-b", "side"]);
    repo.write("y.txt", "the content of x\n");
    repo.write("x.txt", "x changed on the side\n");
    repo.commit_all("side: copy x to y, change x");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("keep.txt", "keep, changed on main\n");
    repo.commit_all("main moves on");
    repo.git(&["merge", "-q", "--no-ff", "--no-commit", "side"]);
    repo.git(&["rm", "-q", "-f", "x.txt"]);
    repo.git(&["commit", "-q", "-m", "merge, deleting x"]);
    let base = repo.rev("main~2");
    assert_eq!(
        compare_with_git(&repo, &format!("{base}..main"), "inspect"),
        4
    );
}

// ---------------------------------------------------------------------------
// Scenarios.

/// A repository whose first commit (returned: the baseline) holds a policy
/// at `mode` with `merges` and `extra`, a README, `src/` and `docs/`; then
/// task T-1 (scope `src/**`) committed and made active.
pub fn task_repo(mode: &str, merges: &str, extra: &[&str]) -> (TestRepo, String) {
    let repo = TestRepo::new();
    write_policy(&repo, mode, merges, extra);
    repo.write("README.md", "# demo\n");
    repo.write("src/a.rs", "a\n");
    repo.write("docs/x.md", "x\n");
    let base = repo.commit_all("initial");
    write_task(&repo, "T-1", &["src/**"], &base);
    repo.commit_all("start T-1\n\nTask: T-1");
    activate(&repo, "T-1");
    (repo, base)
}

fn short(id: &str) -> &str {
    &id[..12]
}

#[test]
fn in_scope_work_passes_and_the_task_range_is_the_default() {
    let (repo, base) = task_repo("required", "refuse", &[]);
    repo.write("src/b.rs", "b\n");
    repo.commit_all("add b");
    let out = check_range(&repo, &format!("{base}..HEAD"), &[]);
    assert_exit(&out, 0);
    let doc = json(&out);
    assert_eq!(findings(&doc), Vec::<Value>::new());
    assert_eq!(
        doc["checks"][0]["summary"],
        format!("2 commits in {base}..HEAD")
    );
    // No --range: the active task's baseline..HEAD.
    let out = repo
        .gate()
        .args(["check", "--only", "provenance", "--json"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    assert_eq!(
        json(&out)["checks"][0]["summary"],
        format!("2 commits in {}..HEAD", short(&base))
    );
}

#[test]
fn a_path_changed_and_restored_is_still_refused() {
    let (repo, base) = task_repo("required", "refuse", &[]);
    repo.write("README.md", "# changed for a while\n");
    let changed = repo.commit_all("touch the README");
    repo.write("README.md", "# demo\n");
    let restored = repo.commit_all("restore the README");
    assert!(repo.git_ok(&["diff", "--quiet", &base, "HEAD", "--", "README.md"]));
    let out = check_range(&repo, &format!("{base}..HEAD"), &[]);
    assert_exit(&out, 1);
    let got: Vec<(String, String, String)> = findings(&json(&out))
        .iter()
        .map(|f| {
            (
                f["cause"].as_str().unwrap().to_string(),
                f["commit"].as_str().unwrap().to_string(),
                f["path"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expect = |c: &str| {
        (
            "path_outside_scope".to_string(),
            c.to_string(),
            "README.md".to_string(),
        )
    };
    assert_eq!(got, vec![expect(&restored), expect(&changed)]);
}

// ---------------------------------------------------------------------------
// Ranges that cannot be proved.

/// Run `--range` and expect exactly one finding with `cause`, and `code`.
fn expect_range_finding(repo: &TestRepo, range: &str, cause: &str, code: i32) -> Value {
    let out = check_range(repo, range, &[]);
    assert_exit(&out, code);
    let doc = json(&out);
    assert_eq!(causes(&doc), vec![cause.to_string()], "{range}: {doc:#}");
    let f = findings(&doc).remove(0);
    assert!(!f["message"].as_str().unwrap().is_empty());
    assert!(!f["decide"].as_str().unwrap().is_empty(), "{f:#}");
    f
}

#[test]
fn a_baseline_that_is_not_an_ancestor_is_refused() {
    let (repo, base) = task_repo("required", "refuse", &[]);
    repo.git(&["checkout", "-q", "-b", "elsewhere", &base]);
    repo.write("src/c.rs", "c\n");
    let elsewhere = repo.commit_all("elsewhere\n\nTask: T-1");
    repo.git(&["checkout", "-q", "main"]);
    let f = expect_range_finding(&repo, "elsewhere..main", "baseline_not_ancestor", 1);
    assert_eq!(f["commit"], elsewhere);
    assert_eq!(f["unknown"], false);
}

#[test]
fn unavailable_baselines_and_tips_are_unknown() {
    let (repo, base) = task_repo("required", "refuse", &[]);
    let absent = "0123456789abcdef0123456789abcdef01234567";
    let other = TestRepo::new();
    other.write("f", "another repository\n");
    let foreign = other.commit_all("elsewhere");
    for spec in [
        format!("{absent}..HEAD"),
        format!("{foreign}..HEAD"),
        "no-such-branch..HEAD".to_string(),
        "HEAD^{tree}..HEAD".to_string(),
    ] {
        let f = expect_range_finding(&repo, &spec, "baseline_unavailable", 3);
        assert_eq!(f["unknown"], true);
    }
    for spec in [
        format!("{base}..no-such-branch"),
        format!("{base}..{foreign}"),
    ] {
        expect_range_finding(&repo, &spec, "tip_unavailable", 3);
    }
}

#[test]
fn malformed_and_symmetric_ranges_are_refused() {
    let (repo, base) = task_repo("required", "refuse", &[]);
    for spec in [format!("{base}...HEAD"), "HEAD".to_string(), String::new()] {
        expect_range_finding(&repo, &spec, "range_invalid", 3);
    }
}

#[test]
fn an_empty_range_proves_nothing() {
    let (repo, _) = task_repo("required", "refuse", &[]);
    let f = expect_range_finding(&repo, "HEAD..HEAD", "empty_range", 1);
    assert_eq!(f["severity"], "blocker");
    // `A..` and `..B` mean HEAD on the empty side.
    expect_range_finding(&repo, "HEAD..", "empty_range", 1);
    expect_range_finding(&repo, "..HEAD", "empty_range", 1);
}

/// `gate check --only provenance --json`: the active task's own range.
fn check_task_range(repo: &TestRepo) -> Output {
    repo.gate()
        .args(["check", "--only", "provenance", "--json"])
        .output()
        .unwrap()
}

#[test]
fn a_task_with_no_commits_yet_is_info_not_an_empty_range() {
    let (repo, _) = task_repo("required", "refuse", &[]);
    // A task started at HEAD: its own range, baseline..HEAD, is empty.
    write_task(&repo, "T-2", &["src/**"], &repo.head());
    activate(&repo, "T-2");
    let out = check_task_range(&repo);
    assert_exit(&out, 0);
    let doc = json(&out);
    assert_eq!(causes(&doc), vec!["no_commits_yet"]);
    assert_eq!(findings(&doc)[0]["severity"], "info");
    assert_eq!(doc["checks"][0]["outcome"], "pass");
    // The same range named with --range proves nothing, as before.
    expect_range_finding(&repo, "HEAD..HEAD", "empty_range", 1);
}

#[test]
fn a_detached_head_is_proved_like_a_branch() {
    let (repo, _) = task_repo("required", "refuse", &[]);
    repo.write("src/b.rs", "b\n");
    repo.commit_all("in scope");
    repo.git(&["checkout", "-q", "--detach"]);
    let out = check_task_range(&repo);
    assert_exit(&out, 0);
    repo.write("docs/x.md", "out of scope\n");
    let bad = repo.commit_all("out of scope, detached");
    let out = check_task_range(&repo);
    assert_exit(&out, 1);
    let doc = json(&out);
    assert_eq!(causes(&doc), vec!["path_outside_scope"]);
    assert_eq!(findings(&doc)[0]["commit"], bad);
}

#[test]
fn an_unborn_branch_has_no_tip() {
    let (repo, base) = task_repo("required", "refuse", &[]);
    repo.git(&["checkout", "-q", "--orphan", "fresh"]);
    let out = repo
        .gate()
        .args(["check", "--only", "provenance", "--json"])
        .output()
        .unwrap();
    assert_exit(&out, 3);
    assert_eq!(causes(&json(&out)), vec!["tip_unavailable"]);
    expect_range_finding(&repo, &format!("{base}..HEAD"), "tip_unavailable", 3);
}

// ---------------------------------------------------------------------------
// Shallow clones.

/// A source repository with a committed policy and task T-1 and `n` more
/// commits in scope carrying `Task: T-1`; returns it and its commits, oldest first.
fn trailer_history(n: usize) -> (TestRepo, Vec<String>) {
    let (repo, base) = task_repo("required", "refuse", &[]);
    let mut commits = vec![base, repo.head()];
    for i in 0..n {
        repo.write(&format!("src/f{i}.rs"), format!("{i}\n"));
        commits.push(repo.commit_all(&format!("work {i}\n\nTask: T-1")));
    }
    (repo, commits)
}

/// `git clone ARGS SOURCE DEST` into a scratch directory of `source`.
fn clone(source: &TestRepo, name: &str, args: &[&str]) -> std::path::PathBuf {
    let dest = source.scratch(name);
    let url = format!("file://{}", source.path().display());
    let mut all = vec!["clone", "-q"];
    all.extend_from_slice(args);
    all.extend_from_slice(&[&url, dest.to_str().expect("utf-8")]);
    source.git(&all);
    dest
}

fn gate_in(repo: &TestRepo, dir: &std::path::Path, args: &[&str]) -> Output {
    repo.gate().current_dir(dir).args(args).output().unwrap()
}

#[test]
fn a_shallow_clone_proves_what_it_holds_and_no_more() {
    let (source, commits) = trailer_history(5);
    let dir = clone(&source, "shallow", &["--depth", "3"]);
    let head = commits.last().unwrap();
    // Fully inside the fetched history: proved.
    let inside = &commits[commits.len() - 3];
    let out = gate_in(
        &source,
        &dir,
        &["check", "--range", &format!("{inside}..{head}"), "--json"],
    );
    assert_exit(&out, 0);
    assert_eq!(
        json(&out)["checks"][0]["summary"],
        format!("2 commits in {inside}..{head}")
    );
    // Reaching past the boundary: by id, and by a revision that walks past it.
    for range in [format!("{}..HEAD", commits[1]), "HEAD~4..HEAD".to_string()] {
        let out = gate_in(&source, &dir, &["check", "--range", &range, "--json"]);
        assert_exit(&out, 3);
        assert_eq!(causes(&json(&out)), vec!["shallow_history"], "{range}");
    }
}

// ---------------------------------------------------------------------------
// Merges.

/// T-1's branch `work` (from the baseline, in scope), and `main` moving on
/// with a README change and a `src/a.rs` change. Returns the repo and base.
fn diverged(merges: &str, extra: &[&str]) -> (TestRepo, String) {
    let (repo, base) = task_repo("required", merges, extra);
    repo.git(&["checkout", "-q", "-b", "work"]);
    repo.write("src/b.rs", "b\n");
    repo.commit_all("work\n\nTask: T-1");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("README.md", "# demo, upstream\n");
    repo.commit_all("upstream: README");
    repo.write("src/a.rs", "a, upstream\n");
    repo.commit_all("upstream: a.rs");
    repo.git(&["checkout", "-q", "work"]);
    (repo, base)
}

#[test]
fn merges_are_refused_one_finding_each() {
    let (repo, base) = diverged("refuse", &[]);
    repo.git(&["merge", "-q", "--no-ff", "--no-edit", "main"]);
    let merge = repo.head();
    let out = check_range(&repo, &format!("{base}..HEAD"), &[]);
    assert_exit(&out, 1);
    let doc = json(&out);
    let merges: Vec<Value> = findings(&doc)
        .into_iter()
        .filter(|f| f["cause"] == "merge_commit")
        .collect();
    assert_eq!(merges.len(), 1, "{doc:#}");
    assert_eq!(merges[0]["commit"], merge);
    assert_eq!(merges[0]["change"], "merge");
}

#[test]
fn inspected_merges_are_judged_by_their_own_changes() {
    // A clean merge of an in-scope side branch passes.
    let (repo, base) = task_repo("required", "inspect", &[]);
    repo.git(&["checkout", "-q", "-b", "side"]);
    repo.write("src/side.rs", "side\n");
    repo.commit_all("side\n\nTask: T-1");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("src/main.rs", "main\n");
    repo.commit_all("main\n\nTask: T-1");
    repo.git(&["merge", "-q", "--no-ff", "--no-edit", "side"]);
    let out = check_range(&repo, &format!("{base}..HEAD"), &[]);
    assert_exit(&out, 0);
    assert!(findings(&json(&out)).is_empty());

    // A conflict resolved in scope, with an out-of-scope edit slipped in.
    let (repo, base) = diverged("inspect", &["upstream: refs/heads/main"]);
    repo.write("src/a.rs", "a, work\n");
    repo.commit_all("work on a\n\nTask: T-1");
    let out = repo.git_may_fail(&["merge", "-q", "--no-edit", "main"]);
    assert!(!out.status.success(), "the merge conflicts on src/a.rs");
    repo.write("src/a.rs", "a, resolved\n");
    repo.write("docs/x.md", "x, changed while merging\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-edit"]);
    let merge = repo.head();
    let out = check_range(&repo, &format!("{base}..HEAD"), &[]);
    assert_exit(&out, 1);
    let doc = json(&out);
    let refused: Vec<(String, String)> = findings(&doc)
        .iter()
        .filter(|f| f["cause"] == "path_outside_scope")
        .map(|f| {
            (
                f["commit"].as_str().unwrap().to_string(),
                f["path"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // Not README.md: it came from main unchanged. Not src/a.rs: in scope.
    assert_eq!(
        refused,
        vec![(merge.clone(), "docs/x.md".to_string())],
        "{doc:#}"
    );
    let imported: BTreeSet<String> = findings(&doc)
        .iter()
        .filter(|f| f["cause"] == "imported_commit")
        .map(|f| {
            assert_eq!(f["severity"], "info");
            f["commit"].as_str().unwrap().to_string()
        })
        .collect();
    // Everything main holds, T-1's own start commit included.
    let upstream: BTreeSet<String> = repo
        .git(&["rev-list", &format!("{base}..main")])
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(imported, upstream);
    assert_eq!(
        doc["checks"][0]["summary"],
        format!("6 commits in {base}..HEAD (1 merge, 3 imported)")
    );
}

#[test]
fn a_branch_upstream_means_the_target_branch_wherever_this_clone_keeps_it() {
    let (source, _) = task_repo("required", "inspect", &[]);
    source.write("README.md", "# upstream moved\n");
    source.commit_all("upstream work");
    let dir = clone(&source, "clone", &[]);
    let git = |args: &[&str]| source.git_in(&dir, args);
    let base = git(&["rev-parse", "HEAD~1"]).trim().to_string();
    // Local `main` lags behind origin/main; T-1's branch merges origin/main.
    git(&["checkout", "-q", "-b", "work", "HEAD~1"]);
    git(&["branch", "-f", "main", "HEAD"]);
    std::fs::write(dir.join("src/w.rs"), "w\n").unwrap();
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "work\n\nTask: T-1"]);
    git(&["merge", "-q", "--no-ff", "--no-edit", "origin/main"]);
    let upstream_commit = git(&["rev-parse", "origin/main"]).trim().to_string();
    let run = |policy_upstream: Option<&str>| {
        let extra: Vec<String> = policy_upstream
            .map(|u| format!("upstream: {u}"))
            .into_iter()
            .collect();
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let mut text = "version: 1\nbinding: off\nscope: required\nprovenance:\n  mode: required\n  merges: inspect\n".to_string();
        for l in extra {
            text.push_str(&format!("  {l}\n"));
        }
        text.push_str("receipts:\n  mode: off\nbrief:\n  mode: off\n");
        std::fs::write(dir.join(".gate/policy.yaml"), text).unwrap();
        let policy = policy_commit(&dir).expect("a policy was written");
        let out = gate_in(
            &source,
            &dir,
            &[
                "check",
                "--range",
                &format!("{base}..HEAD"),
                "--task",
                "T-1",
                "--json",
                "--policy-from",
                &policy,
            ],
        );
        let doc = json(&out);
        (out, doc)
    };
    let cause_of_upstream_commit = |upstream: Option<&str>, exit: i32| {
        let (out, doc) = run(upstream);
        assert_exit(&out, exit);
        let f: Vec<Value> = findings(&doc)
            .into_iter()
            .filter(|f| f["commit"] == upstream_commit.as_str())
            .collect();
        assert_eq!(f.len(), 1, "{upstream:?}: {doc:#}");
        f[0]["cause"].as_str().unwrap().to_string()
    };
    // No upstream: origin/main's commit is the range's like any other, and refused.
    assert_eq!(cause_of_upstream_commit(None, 1), "path_outside_scope");
    // `refs/heads/main` is the target branch where this clone keeps it,
    // origin/main: the stale local `main` does not make its commit the
    // task's work. Named as the remote-tracking ref: the same.
    for upstream in ["refs/heads/main", "refs/remotes/origin/main"] {
        assert_eq!(
            cause_of_upstream_commit(Some(upstream), 0),
            "imported_commit"
        );
    }
    // A local `main` moved onto the work imports nothing the remote lacks:
    // the task's own commit is still proved.
    git(&["branch", "-f", "main", "work"]);
    let (out, doc) = run(Some("refs/heads/main"));
    assert_exit(&out, 0);
    let own = git(&["rev-parse", "HEAD^1"]).trim().to_string();
    assert!(
        findings(&doc)
            .iter()
            .all(|f| f["commit"] != own.as_str() || f["cause"] != "imported_commit"),
        "{doc:#}"
    );
    // Where no remote has the branch (a bare server, no remote), the local
    // one is the target.
    git(&["remote", "rename", "origin", "elsewhere"]);
    git(&["update-ref", "-d", "refs/remotes/elsewhere/main"]);
    git(&["branch", "-f", "main", &upstream_commit]);
    assert_eq!(
        cause_of_upstream_commit(Some("refs/heads/main"), 0),
        "imported_commit"
    );
}

// ---------------------------------------------------------------------------
// Trailers and attribution.

#[test]
fn trailers_attribute_commits_and_are_required_when_the_policy_says() {
    let (repo, base) = task_repo("required", "refuse", &["trailer: Task"]);
    write_task(&repo, "T-2", &["docs/**"], &base);
    repo.commit_all("start T-2\n\nTask: T-2");
    repo.write("src/b.rs", "b\n");
    repo.commit_all("T-1 work\n\nTask: T-1");
    repo.write("docs/y.md", "y\n");
    repo.commit_all("T-2 work\n\nTask: T-2");
    repo.write("src/c.rs", "c\n");
    let wrong = repo.commit_all("T-2 touching src\n\nTask: T-2");
    repo.write("src/d.rs", "d\n");
    let bare = repo.commit_all("no trailer");
    repo.write("src/e.rs", "e\n");
    let unknown = repo.commit_all("names nobody\n\nTask: T-9");
    let out = check_range(&repo, &format!("{base}..HEAD"), &[]);
    assert_exit(&out, 1);
    let doc = json(&out);
    let got: Vec<(String, String, Option<String>)> = findings(&doc)
        .iter()
        .map(|f| {
            (
                f["commit"].as_str().unwrap().to_string(),
                f["cause"].as_str().unwrap().to_string(),
                f["task"].as_str().map(str::to_string),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (unknown, "unknown_task".into(), Some("T-9".into())),
            // Reported, and still checked against the active task (in scope).
            (bare, "missing_trailer".into(), None),
            (wrong, "path_outside_scope".into(), Some("T-2".into())),
        ],
        "{doc:#}"
    );
}

#[test]
fn a_fresh_clone_needs_no_local_state() {
    // One task file added in the range: commits without a trailer are its.
    let (source, base) = task_repo("required", "refuse", &[]);
    source.write("src/b.rs", "b\n");
    source.commit_all("no trailer, in scope");
    let dir = clone(&source, "ci-one", &[]);
    let out = gate_in(
        &source,
        &dir,
        &["check", "--range", &format!("{base}..HEAD"), "--json"],
    );
    assert_exit(&out, 0);
    assert!(findings(&json(&out)).is_empty());

    // Two task files added: a commit without a trailer could be either's.
    write_task(&source, "T-2", &["docs/**"], &base);
    source.commit_all("start T-2\n\nTask: T-2");
    source.write("docs/y.md", "y\n");
    source.commit_all("T-2 work\n\nTask: T-2");
    source.write("src/c.rs", "c\n");
    let ambiguous = source.commit_all("no trailer again");
    let dir = clone(&source, "ci-two", &[]);
    let out = gate_in(
        &source,
        &dir,
        &["check", "--range", &format!("{base}..HEAD"), "--json"],
    );
    assert_exit(&out, 1);
    let doc = json(&out);
    let unattributed: Vec<String> = findings(&doc)
        .iter()
        .map(|f| {
            assert_eq!(f["cause"], "unattributed_commit", "{doc:#}");
            f["commit"].as_str().unwrap().to_string()
        })
        .collect();
    let no_trailer = source.rev("HEAD~3");
    assert_eq!(unattributed, vec![ambiguous, no_trailer]);
}

/// Commits with no trailer wait for the range's task files with their
/// changes, up to 20,000 changes held; past that they let them go and are
/// read again once the one task the range touches is known. The verdict is
/// the one the held changes give: a merge's own changes too.
#[test]
fn pending_commits_past_the_changes_held_are_read_again() {
    let (repo, base) = task_repo("required", "inspect", &[]);
    repo.write("docs/out.md", "out\n");
    let outside = repo.commit_all("outside T-1's scope, no trailer");
    repo.git(&["checkout", "-q", "-b", "side"]);
    repo.write("src/side.rs", "side\n");
    repo.commit_all("side, no trailer");
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--no-ff", "--no-commit", "side"]);
    repo.write("docs/evil.md", "slipped into the merge\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-edit"]);
    let merge = repo.head();
    // 20,001 paths in scope, staged without being written out.
    let blob = repo
        .git_stdin(&["hash-object", "-w", "--stdin"], "generated\n")
        .trim()
        .to_string();
    let entries: String = (0..20_001)
        .map(|n| format!("100644 {blob}\tsrc/gen/f{n:05}.rs\n"))
        .collect();
    repo.git_stdin(&["update-index", "--index-info"], &entries);
    repo.git(&[
        "commit",
        "-q",
        "-m",
        "twenty thousand files in scope, no trailer",
    ]);
    // A bare clone: no task is active, so the range's one task file decides.
    let bare = clone(&repo, "ci-bare", &["--bare"]);
    let out = gate_in(
        &repo,
        &bare,
        &[
            "check",
            "--range",
            &format!("{base}..HEAD"),
            "--only",
            "provenance",
            "--json",
        ],
    );
    assert_exit(&out, 1);
    let doc = json(&out);
    let refused: Vec<(String, String, String)> = findings(&doc)
        .iter()
        .map(|f| {
            (
                f["cause"].as_str().unwrap().to_string(),
                f["commit"].as_str().unwrap().to_string(),
                f["path"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let refused_at = |commit: &str, path: &str| {
        (
            "path_outside_scope".to_string(),
            commit.to_string(),
            path.to_string(),
        )
    };
    assert_eq!(
        refused,
        vec![
            refused_at(&merge, "docs/evil.md"),
            refused_at(&outside, "docs/out.md")
        ],
        "{doc:#}"
    );
}

// ---------------------------------------------------------------------------
// Missing objects.

fn loose_object(repo: &TestRepo, id: &str) -> std::path::PathBuf {
    repo.path()
        .join(".git/objects")
        .join(&id[..2])
        .join(&id[2..])
}

#[test]
fn missing_trees_and_commits_are_unknown_never_pass() {
    let (repo, base) = task_repo("required", "refuse", &[]);
    repo.write("src/b.rs", "b\n");
    let mid = repo.commit_all("b\n\nTask: T-1");
    repo.write("src/c.rs", "c\n");
    repo.commit_all("c\n\nTask: T-1");
    let range = format!("{base}..HEAD");
    // A tree of a commit in the range.
    let src_tree = repo
        .git(&["rev-parse", &format!("{mid}:src")])
        .trim()
        .to_string();
    std::fs::remove_file(loose_object(&repo, &src_tree)).unwrap();
    let out = check_range(&repo, &range, &[]);
    assert_exit(&out, 3);
    let doc = json(&out);
    assert!(
        causes(&doc).iter().all(|c| c == "object_missing"),
        "{doc:#}"
    );
    assert!(
        out.stdout
            .windows(src_tree.len())
            .any(|w| w == src_tree.as_bytes())
    );
    // A commit in the middle of the range.
    let (repo, base) = task_repo("required", "refuse", &[]);
    repo.write("src/b.rs", "b\n");
    let mid = repo.commit_all("b\n\nTask: T-1");
    repo.write("src/c.rs", "c\n");
    repo.commit_all("c\n\nTask: T-1");
    std::fs::remove_file(loose_object(&repo, &mid)).unwrap();
    let out = check_range(&repo, &format!("{base}..HEAD"), &[]);
    assert_exit(&out, 3);
    assert_eq!(causes(&json(&out)), vec!["object_missing"]);
}

/// Messages whose trailers are easy to get wrong: gate must find what git finds.
#[test]
fn trailers_are_found_where_git_finds_them() {
    let messages: &[&str] = &[
        "Task: T-1",
        "Task: T-1\n",
        "S\n\nTask: T-1\n",
        "S\n\nTask:T-1",
        "S\n\nTask : T-1",
        "S\n\ntask: t-1\n",
        "S\n\nBody\nTask: T-1\n",
        "S\n\nBody\n\nSigned-off-by: A <a@b>\nTask: T-1\nfree text\n",
        "S\n\nBody\n\nTask: T-1\nfree text\nmore text\n",
        "S\n\nTask: T-1\n  continued\nX: y\n",
        "S\n\nTask: T-1\n  continued\nfree\n",
        "S\r\n\r\nTask: T-1\r\n",
        "S\n\n(cherry picked from commit abc)\nTask: T-2\nfoo\nbar\nbaz\n",
        "S\n\n(cherry picked from commit abc)\nTask: T-2\nfoo\nbar\nbaz\nqux\nquux\nx\ny\n",
        "S\n\nTask: T-1\nTask: T-2\n",
        "S\n\n  Task: indented\n",
        "S\n\nTask: T-1\n\n\n",
        "S\n\nSome prose: not a trailer\n",
        "S\n\nTask: T-1\n\nThe body goes on.\n",
        "S\n\nhttp://example.com/x\nTask: T-3\n",
        "S\n\nTask:\nTask: T-4\n",
        "S\n \t\nTask: T-5\n",
        "\n\nS\n\nTask: T-6\n\n \n",
        "S\nBody\nTask: T-7\n",
    ];
    let repo = TestRepo::new();
    for message in messages {
        let mut cmd = crate::support::git_command(repo.path());
        cmd.args(["interpret-trailers", "--parse"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped());
        let mut child = cmd.spawn().expect("git interpret-trailers");
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), message.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let mut git: Vec<String> = Vec::new();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            if let Some((k, v)) = line.split_once(": ")
                && k.eq_ignore_ascii_case("task")
                // An empty value names no task: gate leaves it out.
                && !v.trim().is_empty()
                && !git.contains(&v.to_string())
            {
                git.push(v.to_string());
            }
        }
        let gate = gate::provenance::trailer_values(message.as_bytes(), "Task");
        assert_eq!(gate, git, "{message:?}");
    }
}

/// The missing-object mapping of the git layer the check relies on: an
/// absent commit in the middle of history is an error naming it (gix's
/// merge-base alone would answer "not an ancestor"), and so is an absent
/// subtree in a diff.
#[test]
fn absent_commits_and_subtrees_are_named_by_the_git_layer() {
    if !crate::support::isolate(crate::this_test!()) {
        return;
    }
    use gate::git::{GitError, Oid, Renames, Repo};
    let (repo, base) = task_repo("required", "refuse", &[]);
    repo.write("src/deep/b.rs", "b\n");
    let mid = repo.commit_all("b");
    repo.write("src/deep/c.rs", "c\n");
    let head = repo.commit_all("c");
    let subtree = repo
        .git(&["rev-parse", &format!("{head}:src/deep")])
        .trim()
        .to_string();
    let oid = |h: &str| Oid::from_hex(h).unwrap();
    let missing = |r: Result<(), GitError>| match r {
        Err(GitError::MissingObject { id }) => id,
        other => panic!("expected MissingObject, got {other:?}"),
    };
    std::fs::remove_file(loose_object(&repo, &subtree)).unwrap();
    let gate = Repo::discover(repo.path()).unwrap();
    match gate.changes(oid(&head), Renames::Exact) {
        Err(GitError::MissingInDiff { id, context }) => {
            assert_eq!(id, subtree);
            assert!(context.contains(&head), "{context}");
        }
        other => panic!("expected MissingInDiff, got {other:?}"),
    }
    std::fs::remove_file(loose_object(&repo, &mid)).unwrap();
    let gate = Repo::discover(repo.path()).unwrap();
    assert_eq!(
        missing(gate.is_ancestor(oid(&base), oid(&head)).map(|_| ())),
        mid
    );
    assert_eq!(
        missing(gate.walk(&[oid(&head)], &[oid(&base)]).map(|_| ())),
        mid
    );
}

// ---------------------------------------------------------------------------
// A long range.

/// Peak resident memory of a running child, sampled until it exits (Linux).
fn run_measuring_memory(mut cmd: std::process::Command) -> (Output, Option<u64>) {
    use std::io::Read;
    cmd.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("spawn gate");
    let status_file = format!("/proc/{}/status", child.id());
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        stdout.read_to_end(&mut buf).unwrap();
        buf
    });
    let mut peak = None;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status_file)
            && let Some(kb) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            peak = Some(kb * 1024);
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let stdout = reader.join().unwrap();
    let mut out = child.wait_with_output().unwrap();
    out.stdout = stdout;
    (out, peak)
}

#[test]
fn a_hundred_thousand_commit_range_is_proved() {
    if !crate::support::long_test(crate::this_test!()) {
        return;
    }
    let repo = TestRepo::new();
    crate::support::fast_import(&repo, &crate::git_layer::long_history_stream(100_000));
    repo.git(&["reset", "-q", "--hard", "main"]);
    let root = repo
        .git(&["rev-list", "--max-parents=0", "main"])
        .trim()
        .to_string();
    write_policy(&repo, "required", "refuse", &[]);
    write_task(&repo, "T-big", &["dir*"], &root);
    let range = format!("{root}..main");
    let count: usize = repo
        .git(&["rev-list", "--count", &range])
        .trim()
        .parse()
        .unwrap();
    let merges: usize = repo
        .git(&["rev-list", "--merges", "--count", &range])
        .trim()
        .parse()
        .unwrap();
    // git's (commit, path) pairs outside `dir*` in the commits that are not merges.
    let log = repo.git_bytes(&[
        "log",
        "--no-merges",
        "--no-renames",
        "--name-only",
        "-z",
        "--format=%x01%H",
        &range,
    ]);
    let mut outside = 0usize;
    for record in log.split(|b| *b == 1).filter(|r| !r.is_empty()) {
        let paths = record
            .split(|b| *b == 0 || *b == b'\n')
            .skip(1)
            .filter(|p| !p.is_empty());
        outside += paths.filter(|p| !p.starts_with(b"dir")).count();
    }
    assert!(
        count > 99_000 && merges > 1_000 && outside > 10_000,
        "{count} {merges} {outside}"
    );

    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin!("gate"));
    cmd.current_dir(repo.path())
        .env_clear()
        .envs(crate::support::git_env())
        .args(["check", "--range", &range, "--task", "T-big", "--json"]);
    let policy = policy_commit(repo.path()).expect("a policy was written");
    cmd.args(["--policy-from", &policy]);
    let started = std::time::Instant::now();
    let (out, peak) = run_measuring_memory(cmd);
    let took = started.elapsed();
    assert_exit(&out, 1);
    let doc = json(&out);
    let check = &doc["checks"][0];
    assert_eq!(
        check["summary"],
        format!("{count} commits in {range} ({merges} merges)")
    );
    let mut by_cause: BTreeMap<String, usize> = BTreeMap::new();
    for f in check["findings"].as_array().unwrap() {
        *by_cause
            .entry(f["cause"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    let expected: BTreeMap<String, usize> = [
        ("merge_commit".to_string(), merges),
        ("path_outside_scope".to_string(), outside),
    ]
    .into();
    assert_eq!(by_cause, expected);
    eprintln!(
        "100k range: {took:?}, peak memory {} MiB, {} bytes of JSON",
        peak.map_or("?".into(), |p| (p >> 20).to_string()),
        out.stdout.len()
    );
    if let Some(peak) = peak {
        assert!(peak < 1 << 30, "peak memory {} MiB", peak >> 20);
    }
}

/// The commit cache is written on a thread of its own while the report is
/// made and printed (src/git/mod.rs, `keep_read_commits`): the process
/// waits for it before it exits, so the file is whole (it checks, and the
/// next run reads its commits from there and answers the same) and no
/// temporary file is left, however soon the report is printed (the
/// write is held back 300 ms here, so that a process that did not wait
/// would end first).
#[test]
fn the_commit_cache_written_beside_the_report_is_whole_when_gate_exits() {
    let repo = TestRepo::new();
    crate::support::fast_import(&repo, &crate::git_layer::long_history_stream(2_500));
    repo.git(&["reset", "-q", "--hard", "main"]);
    let root = repo
        .git(&["rev-list", "--max-parents=0", "main"])
        .trim()
        .to_string();
    // Merges inspected: their searches read through the commit cache.
    write_policy(&repo, "required", "inspect", &[]);
    let policy = policy_commit(repo.path()).expect("a policy was written");
    let range = format!("{root}..main");
    let cache = repo.path().join(".git/gate/cache");
    let run = || {
        let out = repo
            .gate()
            .args(["check", "--range", &range, "--only", "provenance"])
            .args(["--policy-from", &policy, "--format", "json"])
            .env("GATE_TEST_SLOW_CACHE_WRITE", "300")
            .output()
            .unwrap();
        assert_exit(&out, 1);
        out.stdout
    };
    let mut reports = Vec::new();
    for round in 0..3 {
        reports.push(run());
        let file = cache.join("commits-sha1.cache");
        let bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("round {round}: {e}"));
        assert!(bytes.starts_with(b"gate-commit-cache\n"), "round {round}");
        assert!(
            bytes.len() > 2_500 * 40,
            "round {round}: {} bytes",
            bytes.len()
        );
        let leftovers = crate::support::temporary_files_in(&cache);
        assert!(leftovers.is_empty(), "round {round}: {leftovers:?}");
        // The next round starts cold once more, but for the last.
        if round == 0 {
            std::fs::remove_file(&file).unwrap();
        }
    }
    assert_eq!(reports[0], reports[1]);
    assert_eq!(reports[1], reports[2], "the warm run answers the same");
}

// ---------------------------------------------------------------------------
// Golden transcripts.

/// A range of T-1's commits that provenance refuses: out-of-scope paths in
/// two commits (one not UTF-8), a rename, and a merge. Returns the range.
pub fn refused_range() -> (TestRepo, String) {
    let (repo, base) = task_repo("required", "refuse", &[]);
    repo.write("src/ok.rs", "in scope\n");
    repo.write("README.md", "# out of scope\n");
    repo.commit_all("readme\n\nTask: T-1");
    repo.git(&["mv", "docs/x.md", "notes.md"]);
    repo.write_at(b"data/bad\xffname.txt", "bytes\n");
    repo.commit_all("move docs, add data\n\nTask: T-1");
    repo.write("src/fine.rs", "fine\n");
    repo.commit_all("fine\n\nTask: T-1");
    repo.git(&["checkout", "-q", "-b", "side", "HEAD~1"]);
    repo.write("src/side.rs", "side\n");
    repo.commit_all("side\n\nTask: T-1");
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--no-ff", "--no-edit", "side"]);
    (repo, format!("{base}..HEAD"))
}

#[test]
fn golden_refused_range() {
    let (repo, range) = refused_range();
    let out = repo
        .gate()
        .args(["check", "--range", &range])
        .output()
        .unwrap();
    assert_exit(&out, 1);
    assert_golden(
        "provenance/range-refused.txt",
        &transcript(Some(&repo), &out),
    );
    let out = check_range(&repo, &range, &[]);
    assert_exit(&out, 1);
    assert_golden(
        "provenance/range-refused.json",
        &transcript(Some(&repo), &out),
    );
}

// ---------------------------------------------------------------------------
// A bare repository: CI's `--range` with no work tree, and the server hook.

#[test]
fn a_bare_repository_is_proved_with_the_policy_of_its_head() {
    let (source, base) = task_repo("required", "refuse", &[]);
    source.write("src/b.rs", "b\n");
    source.commit_all("b\n\nTask: T-1");
    source.write("README.md", "# out\n");
    let bad = source.commit_all("readme\n\nTask: T-1");
    let dir = clone(&source, "bare.git", &["--bare"]);
    let out = gate_in(
        &source,
        &dir,
        &["check", "--range", &format!("{base}..HEAD~1"), "--json"],
    );
    assert_exit(&out, 0);
    let doc = json(&out);
    assert_eq!(doc["policy"]["file"], ".gate/policy.yaml");
    assert!(
        doc["policy"]["revision"]
            .as_str()
            .unwrap()
            .starts_with("the range's base ("),
        "{doc:#}"
    );
    assert_eq!(
        doc["checks"][0]["summary"],
        format!("2 commits in {base}..HEAD~1")
    );
    // Every check is accounted for, run or skipped with its reason, as in a clone.
    let mut seen: Vec<&str> = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .chain(doc["skipped"].as_array().unwrap())
        .map(|c| c["check"].as_str().unwrap())
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        ["binding", "brief", "provenance", "receipts", "scope"],
        "{doc:#}"
    );
    let out = gate_in(
        &source,
        &dir,
        &["check", "--range", &format!("{base}..HEAD"), "--json"],
    );
    assert_exit(&out, 1);
    let doc = json(&out);
    assert_eq!(causes(&doc), vec!["path_outside_scope"]);
    assert_eq!(findings(&doc)[0]["commit"], bad);
    // --task names a task of the tip; an unknown one is refused.
    let out = gate_in(
        &source,
        &dir,
        &[
            "check",
            "--range",
            &format!("{base}..HEAD"),
            "--task",
            "T-1",
        ],
    );
    assert_exit(&out, 1);
    let out = gate_in(
        &source,
        &dir,
        &[
            "check",
            "--range",
            &format!("{base}..HEAD"),
            "--task",
            "T-9",
        ],
    );
    assert_exit(&out, 1);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no task `T-9`"),
        "{}",
        show(&out)
    );
    // Other verbs still need a work tree.
    let out = gate_in(&source, &dir, &["check"]);
    assert_exit(&out, 3);
}

/// The `update` hook recipe of docs/ci.md, verbatim.
pub(crate) fn documented_update_hook() -> String {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/ci.md")).unwrap();
    let after = doc
        .split_once("<!-- recipe: update-hook")
        .expect("docs/ci.md marks the recipe")
        .1;
    let script = after.split_once("```sh\n").expect("a sh block").1;
    script
        .split_once("```")
        .expect("the block ends")
        .0
        .to_string()
}

/// `git push ARGS` with `gate` on PATH (the server hook calls it by name).
pub(crate) fn push_with_gate_on_path(repo: &TestRepo, args: &[&str]) -> Output {
    let bin = assert_cmd::cargo::cargo_bin!("gate");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = crate::support::git_command(repo.path());
    cmd.arg("push").args(args).env("PATH", path);
    cmd.output().unwrap()
}

#[test]
fn the_documented_update_hook_proves_each_pushed_ref() {
    let (repo, _) = task_repo("required", "refuse", &[]);
    let server = TestRepo::bare();
    repo.git(&["remote", "add", "origin", server.path().to_str().unwrap()]);
    // Seed the server, then install the hook.
    assert!(
        push_with_gate_on_path(&repo, &["origin", "main"])
            .status
            .success()
    );
    let hook = server.path().join("hooks/update");
    std::fs::write(&hook, documented_update_hook()).unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let on_server = |r: &str| {
        let out = server.git_may_fail(&["rev-parse", "--verify", "-q", r]);
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };

    // In scope: accepted.
    repo.write("src/b.rs", "b\n");
    let good = repo.commit_all("b\n\nTask: T-1");
    let out = push_with_gate_on_path(&repo, &["origin", "main"]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(on_server("refs/heads/main"), Some(good.clone()));

    // Out of scope: that ref is refused, another ref of the same push lands.
    repo.write("README.md", "# out\n");
    let bad = repo.commit_all("readme\n\nTask: T-1");
    repo.git(&["branch", "fine", &good]);
    let out = push_with_gate_on_path(&repo, &["origin", "main", "fine:refs/heads/fine"]);
    assert!(!out.status.success(), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("path_outside_scope") && text.contains(&bad[..12]),
        "{text}"
    );
    assert_eq!(on_server("refs/heads/main"), Some(good.clone()));
    assert_eq!(on_server("refs/heads/fine"), Some(good.clone()));

    // A new branch, proved from where it leaves HEAD.
    repo.git(&["checkout", "-q", "-b", "feature", &good]);
    repo.write("src/f.rs", "f\n");
    let feature = repo.commit_all("f\n\nTask: T-1");
    let out = push_with_gate_on_path(&repo, &["origin", "feature"]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("1 commit in"),
        "{}",
        show(&out)
    );
    assert_eq!(on_server("refs/heads/feature"), Some(feature));

    // A force push: proved from where old and new meet.
    repo.write("src/f.rs", "f, amended\n");
    repo.git(&[
        "commit",
        "-q",
        "--amend",
        "-a",
        "-m",
        "f again\n\nTask: T-1",
    ]);
    let out = push_with_gate_on_path(&repo, &["--force", "origin", "feature"]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not a fast-forward"),
        "{}",
        show(&out)
    );

    // A deletion proves nothing.
    let out = push_with_gate_on_path(&repo, &["origin", "--delete", "fine"]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(on_server("refs/heads/fine"), None);
}

/// gix does not read git's push quarantine, so from `pre-receive` the
/// pushed commits are invisible: gate must say unknown and refuse, never
/// pass (docs/ci.md explains, and recommends the `update` hook).
#[test]
fn a_pre_receive_hook_fails_closed() {
    let (repo, _) = task_repo("required", "refuse", &[]);
    let server = TestRepo::bare();
    repo.git(&["remote", "add", "origin", server.path().to_str().unwrap()]);
    assert!(
        push_with_gate_on_path(&repo, &["origin", "main"])
            .status
            .success()
    );
    let hook = server.path().join("hooks/pre-receive");
    std::fs::write(
        &hook,
        "#!/bin/sh\nstatus=0\nwhile read old new ref; do\n  gate check --range \"$old..$new\" || status=$?\ndone\nexit $status\n",
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    repo.write("src/b.rs", "b\n");
    repo.commit_all("b\n\nTask: T-1");
    let out = push_with_gate_on_path(&repo, &["origin", "main"]);
    assert!(!out.status.success(), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("tip_unavailable") && text.contains("exit 3"),
        "{text}"
    );
}

/// Which paths a commit changed is decided by its trees alone (`git log
/// --name-status` needs no blob either): a blob missing from the range
/// changes nothing in the proof. A blob gate must read — the task file
/// that gives a commit its scope — is unknown when absent.
#[test]
fn a_missing_blob_matters_only_where_gate_reads_it() {
    let (repo, base) = task_repo("required", "refuse", &[]);
    repo.write("src/b.rs", "a blob that will go missing\n");
    repo.write("README.md", "# out of scope\n");
    repo.commit_all("b\n\nTask: T-1");
    let range = format!("{base}..HEAD");
    let before = check_range(&repo, &range, &[]);
    assert_exit(&before, 1);
    let blob = repo.git(&["rev-parse", "HEAD:src/b.rs"]).trim().to_string();
    std::fs::remove_file(loose_object(&repo, &blob)).unwrap();
    assert!(repo.git_ok(&["log", "--name-status", "--format=", &range]));
    let after = check_range(&repo, &range, &[]);
    assert_exit(&after, 1);
    assert_eq!(findings(&json(&after)), findings(&json(&before)));

    // The task file's blob, read from the tip when no task is active.
    std::fs::remove_file(crate::fixture::git_path(&repo, "gate/active")).unwrap();
    let task_blob = repo
        .git(&["rev-parse", "HEAD:.gate/tasks/T-1.md"])
        .trim()
        .to_string();
    std::fs::remove_file(loose_object(&repo, &task_blob)).unwrap();
    let out = check_range(&repo, &range, &[]);
    assert_exit(&out, 3);
    let doc = json(&out);
    // README.md cannot be judged against an unreadable scope: unknown for
    // both commits, which name T-1; nothing passes.
    assert_eq!(
        causes(&doc),
        vec!["task_unreadable", "task_unreadable"],
        "{doc:#}"
    );
    assert!(
        findings(&doc)[0]["message"]
            .as_str()
            .unwrap()
            .contains(&task_blob)
    );
}

#[test]
fn an_unreadable_named_or_active_task_leaves_the_range_unknown() {
    // Attribution without the task the run is about proves nothing as
    // asked: unknown (exit 3 under required), never a silent fallback.
    let repo = TestRepo::new();
    repo.write("src/a.rs", "a\n");
    write_policy(&repo, "required", "refuse", &[]);
    let base = repo.commit_all("base");
    write_task(&repo, "T-1", &["src/**"], &base);
    repo.write("src/b.rs", "b\n");
    repo.commit_all("work");
    let range = format!("{base}..HEAD");
    let out = check_range(&repo, &range, &["--task", "T-1"]);
    assert_exit(&out, 0);

    let out = check_range(&repo, &range, &["--task", "T-absent"]);
    assert_exit(&out, 3);
    assert!(causes(&json(&out)).contains(&"task_unreadable".to_string()));

    activate(&repo, "T-1");
    assert_exit(&check_range(&repo, &range, &[]), 0);
    repo.write(".gate/tasks/T-1.md", "---\nnot: a task\n---\n");
    let out = check_range(&repo, &range, &[]);
    assert_exit(&out, 3);
    assert!(causes(&json(&out)).contains(&"task_unreadable".to_string()));
}

/// The work tree's task listing is part of the answer (a task not committed
/// yet): when it cannot be read, which tasks exist cannot be told.
#[test]
fn a_task_listing_that_cannot_be_read_is_unknown() {
    let (repo, base) = task_repo("required", "refuse", &[]);
    repo.write("src/b.rs", "b\n");
    repo.commit_all("b\n\nTask: T-1");
    std::fs::remove_file(crate::fixture::git_path(&repo, "gate/active")).unwrap();
    std::fs::remove_dir_all(repo.abs(b".gate/tasks")).unwrap();
    repo.write(".gate/tasks", "not a directory\n");
    let out = check_range(&repo, &format!("{base}..HEAD"), &[]);
    assert_exit(&out, 3);
    let doc = json(&out);
    assert!(
        causes(&doc).contains(&"task_unreadable".to_string()),
        "{doc}"
    );
}

/// The task files a range changes, as `provenance::check_walked` reports
/// them — from its own diffs, plus the commits it did not diff against
/// each parent (a merge) diffed by the caller — are the ones git lists
/// with every parent's diff (`git log -m --no-renames --name-only`):
/// pre-push asks the walk instead of diffing the range again. Added,
/// deleted and renamed task files, and one only a merge brings in.
#[test]
fn the_task_files_a_walk_saw_changed_match_git_log() {
    if !crate::support::isolate(crate::this_test!()) {
        return;
    }
    use gate::git::{Oid, Renames, Repo};
    use gate::provenance::{Base, Options, RangeSpec, TaskSet, check_walked, task_of_path};
    let repo = TestRepo::new();
    repo.write("README.md", "r\n");
    let base = repo.commit_all("base");
    repo.git(&["checkout", "-q", "-b", "side"]);
    repo.write(".gate/tasks/T-4.md", "four\n");
    let side = repo.commit_all("side");
    repo.git(&["checkout", "-q", "main"]);
    repo.write(".gate/tasks/T-1.md", "one\n");
    repo.write(".gate/tasks/T-2.md", "two\n");
    repo.commit_all("add");
    repo.git(&["rm", "-q", ".gate/tasks/T-2.md"]);
    repo.git(&["commit", "-q", "-m", "delete"]);
    repo.git(&["mv", ".gate/tasks/T-1.md", ".gate/tasks/T-3.md"]);
    repo.git(&["commit", "-q", "-m", "rename"]);
    repo.git(&["merge", "-q", "--no-ff", "--no-edit", "side"]);
    let tip = repo.head();
    // The side branch is hidden (already on the remote, say): only the
    // merge's own diff names T-4.
    let expected: BTreeSet<String> = repo
        .git(&[
            "log",
            "-m",
            "--no-renames",
            "--format=",
            "--name-only",
            &tip,
            &format!("^{base}"),
            &format!("^{side}"),
        ])
        .lines()
        .filter_map(|p| task_of_path(&gate::path::RepoPath::new(p)))
        .collect();
    assert_eq!(
        expected.iter().map(String::as_str).collect::<Vec<_>>(),
        ["T-1", "T-2", "T-3", "T-4"]
    );
    let oid = |h: &str| Oid::from_hex(h).unwrap();
    let gate = Repo::discover(repo.path()).unwrap();
    let range = RangeSpec {
        base: Base::Hidden(vec![oid(&base), oid(&side)]),
        tip: oid(&tip),
        label: "the range".into(),
        ref_name: None,
    };
    let tasks = TaskSet::gather(&gate, None, oid(&tip), None);
    let (_, _, walked) = check_walked(
        &gate,
        &gate::policy::embedded(),
        &tasks,
        &range,
        &Options::default(),
    );
    let walked = walked.expect("the range was walked");
    assert!(!walked.failed);
    assert_eq!(
        walked.undiffed,
        vec![oid(&tip)],
        "the merge is left undiffed"
    );
    let mut seen = walked.tasks.clone();
    for commit in &walked.undiffed {
        for diff in gate.changes(*commit, Renames::Off).unwrap() {
            for change in &diff.changes {
                seen.extend(change.paths().filter_map(task_of_path));
            }
        }
    }
    assert_eq!(seen, expected);
}

#[test]
fn a_range_that_rewrites_its_tasks_scope_is_judged_by_the_recorded_scope() {
    // T-1 (scope src/**) is committed at the base; the range rewrites its
    // scope to `**` and then uses it. The brief check, which reports the
    // rewrite, is off: provenance must still judge by the recorded scope.
    let (repo, baseline) = task_repo("required", "refuse", &[]);
    let base = repo.head();
    write_task(&repo, "T-1", &["**"], &baseline);
    repo.commit_all("T-1: a wider scope\n\nTask: T-1");
    repo.write("README.md", "# out of the recorded scope\n");
    repo.commit_all("readme\n\nTask: T-1");
    let out = check_range(&repo, &format!("{base}..HEAD"), &["--only", "provenance"]);
    assert_exit(&out, 1);
    let doc = json(&out);
    let outside: Vec<Value> = findings(&doc)
        .into_iter()
        .filter(|f| f["cause"] == "path_outside_scope")
        .collect();
    assert!(outside.iter().any(|f| f["path"] == "README.md"), "{doc:#}");
}

#[test]
fn a_commit_naming_a_task_closed_before_it_is_unattributed() {
    let (repo, _) = task_repo("required", "refuse", &[]);
    let base = repo.head();
    // T-1 is closed (its file committed with `status: completed`)...
    let path = repo.path().join(".gate/tasks/T-1.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let closed = text.replacen("status: active", "status: completed", 1);
    assert_ne!(text, closed, "{text}");
    std::fs::write(&path, closed).unwrap();
    repo.commit_all("T-1: done\n\nTask: T-1");
    // ...and a later commit still names it, in its scope.
    repo.write("src/late.rs", "late\n");
    let late = repo.commit_all("late work\n\nTask: T-1");
    let out = check_range(&repo, &format!("{base}..HEAD"), &["--only", "provenance"]);
    assert_exit(&out, 1);
    let doc = json(&out);
    let unattributed: Vec<Value> = findings(&doc)
        .into_iter()
        .filter(|f| f["cause"] == "unattributed_commit")
        .collect();
    assert_eq!(unattributed.len(), 1, "{doc:#}");
    assert_eq!(unattributed[0]["commit"], late.as_str(), "{doc:#}");
    assert!(
        unattributed[0]["message"]
            .as_str()
            .unwrap()
            .contains("closed before it"),
        "{doc:#}"
    );
}

/// The commit-scope source refuses a commit that changes no path (`git
/// commit --allow-empty`). gate reports it by default (`empty_commit`, a
/// warning: the range still passes), refuses it under
/// `provenance.empty_commits: refuse`, and says nothing under `allow`;
/// every door judges it alike, `gate check --range` here.
#[test]
fn an_empty_commit_is_reported_or_refused_as_the_policy_says() {
    for (extra, code, severity) in [
        (None, 0, Some("warn")),
        (Some("empty_commits: refuse"), 1, Some("blocker")),
        (Some("empty_commits: allow"), 0, None),
    ] {
        let extra: Vec<&str> = extra.into_iter().collect();
        let (repo, base) = task_repo("required", "refuse", &extra);
        repo.write("src/b.rs", "b\n");
        repo.commit_all("add b\n\nTask: T-1");
        repo.git(&[
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "nothing\n\nTask: T-1",
        ]);
        let empty = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
        let out = check_range(&repo, &format!("{base}..HEAD"), &[]);
        assert_exit(&out, code);
        let doc = json(&out);
        let said: Vec<(String, String, String)> = findings(&doc)
            .iter()
            .map(|f| {
                (
                    f["cause"].as_str().unwrap().to_owned(),
                    f["severity"].as_str().unwrap().to_owned(),
                    f["commit"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect();
        match severity {
            Some(severity) => assert_eq!(
                said,
                [(
                    "empty_commit".to_owned(),
                    severity.to_owned(),
                    empty.clone()
                )],
                "{extra:?}"
            ),
            None => assert!(said.is_empty(), "{extra:?}: {said:?}"),
        }
    }
}
