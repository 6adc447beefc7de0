//! The tasks a range touches in CI (docs/ci.md): `Repo::changes_under`
//! compares only the task records' directory, commit by commit, and must
//! give what a full diff of each commit against each parent gives there —
//! and what `git diff-tree` says; `range_rules::tasks_touched` built on it
//! names the tasks `git log` shows the range adding or changing, or naming
//! in a trailer. On a generated history whose plain commits and merges add,
//! change, delete, rename, retype and nest task records.

use std::collections::BTreeSet;

use gate::git::{ChangeKind, Renames, Repo};
use gate::path::RepoPath;

use crate::git_layer::{Row, all_commits, assert_rows, gate_rows, git_diff, merge, oid};
use crate::support::{Rng, TestRepo, isolate};
use crate::this_test;

/// Where task records live (docs/tasks.md).
const TASKS: &str = ".gate/tasks";

/// Builds a history of task records, deterministically.
struct Records<'a> {
    repo: &'a TestRepo,
    rng: Rng,
    n: u64,
}

impl Records<'_> {
    fn tick(&mut self) -> u64 {
        self.n += 1;
        self.n
    }

    /// The records directly in the directory, as git tracks them.
    fn records(&self) -> Vec<String> {
        self.repo
            .git(&["ls-files", "--", TASKS])
            .lines()
            .filter(|p| {
                p.strip_prefix(".gate/tasks/")
                    .is_some_and(|name| !name.contains('/') && name.ends_with(".md"))
            })
            .map(str::to_owned)
            .collect()
    }

    /// A record that is a plain file in the worktree now (an earlier change
    /// of the same commit may have removed or retyped it).
    fn pick(&mut self) -> Option<String> {
        let records: Vec<String> = self
            .records()
            .into_iter()
            .filter(|p| {
                self.repo
                    .abs(p.as_bytes())
                    .symlink_metadata()
                    .is_ok_and(|m| m.is_file())
            })
            .collect();
        (!records.is_empty()).then(|| self.rng.pick(&records).clone())
    }

    /// Write a record at `path`, whatever was there.
    fn record(&mut self, path: &str) {
        let n = self.tick();
        self.repo.remove(path.as_bytes());
        self.repo
            .write(path, format!("---\nid: t{n}\n---\nrecord {n}\n"));
    }

    /// One random change, to a record most of the time.
    fn change(&mut self) {
        let n = self.tick();
        let done = match self.rng.below(11) {
            0 | 1 => {
                self.record(&format!("{TASKS}/t{n}.md"));
                Some(())
            }
            2 | 3 => self.pick().map(|p| self.record(&p)),
            4 => self.pick().map(|p| self.repo.remove(p.as_bytes())),
            5 => self.pick().map(|p| {
                let exec = self
                    .repo
                    .git(&["ls-files", "-s", "--", &p])
                    .starts_with("100755");
                self.repo.chmod(p.as_bytes(), !exec);
            }),
            6 => self.pick().map(|p| {
                self.repo
                    .symlink(p.as_bytes(), format!("elsewhere-{n}").as_bytes());
            }),
            7 => {
                // Below the records' directory, deeper than any record.
                self.record(&format!("{TASKS}/nested{}/deep/t{n}.md", n % 3));
                Some(())
            }
            8 => self.pick().map(|p| {
                self.repo.git(&["mv", &p, &format!("{TASKS}/moved{n}.md")]);
            }),
            9 => self.pick().map(|p| {
                // A record becomes a directory of the same name.
                self.repo.remove(p.as_bytes());
                self.record(&format!("{p}/inner.md"));
            }),
            _ => None,
        };
        if done.is_none() {
            self.repo
                .write(&format!("src/f{}.txt", n % 5), format!("{n}\n"));
        }
    }

    /// A commit of 1–3 random changes; every other one names a task in a
    /// trailer.
    fn commits(&mut self, count: usize) {
        for _ in 0..count {
            for _ in 0..1 + self.rng.below(3) {
                self.change();
            }
            let n = self.tick();
            let message = if n.is_multiple_of(2) {
                format!("change {n}\n\nTask: T-{n}\n")
            } else {
                format!("change {n}\n")
            };
            self.repo.commit_all(&message);
        }
    }
}

/// A history whose plain commits and merges add, change, delete, chmod,
/// rename, retype (symlink, directory) and nest task records; with a merge
/// taking a record from its second parent, an evil merge editing one
/// itself, a conflict on one, the directory turned into a file and back,
/// a second root and an octopus.
fn task_history(seed: u64) -> TestRepo {
    let repo = TestRepo::new();
    let mut g = Records {
        repo: &repo,
        rng: Rng::new(seed),
        n: 0,
    };
    for name in ["a", "b", "d"] {
        g.record(&format!("{TASKS}/{name}.md"));
    }
    repo.write(&format!("{TASKS}/README.txt"), "not a record\n");
    repo.write("src/main.rs", "fn main() {}\n");
    repo.commit_all("root\n\nTask: root-task\n");
    g.commits(6);

    // A record new on a side branch, taken by the merge from its second
    // parent.
    repo.git(&["checkout", "-q", "-b", "side"]);
    g.record(&format!("{TASKS}/from-side.md"));
    repo.commit_all("side: a record");
    g.commits(2);
    repo.git(&["checkout", "-q", "main"]);
    g.commits(2);
    merge(&repo, &["side"]);

    // An evil merge: it edits a record neither parent changed.
    repo.git(&["checkout", "-q", "-b", "evil"]);
    g.commits(2);
    repo.git(&["checkout", "-q", "main"]);
    g.commits(1);
    repo.git_may_fail(&["merge", "-q", "--no-ff", "--no-commit", "evil"]);
    g.record(&format!("{TASKS}/evil.md"));
    g.record(&format!("{TASKS}/a.md"));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "evil merge\n\nTask: T-evil\n"]);

    // Both sides change one record: a conflict, resolved by hand.
    repo.git(&["checkout", "-q", "-b", "conflict"]);
    repo.remove(b".gate/tasks/d.md");
    repo.write(&format!("{TASKS}/d.md"), "conflict side\n");
    repo.commit_all("conflict side");
    repo.git(&["checkout", "-q", "main"]);
    repo.remove(b".gate/tasks/d.md");
    repo.write(&format!("{TASKS}/d.md"), "main side\n");
    repo.commit_all("main side");
    repo.git_may_fail(&["merge", "-q", "--no-ff", "--no-edit", "conflict"]);
    repo.remove(b".gate/tasks/d.md");
    repo.write(&format!("{TASKS}/d.md"), "resolved\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-edit"]);

    // The records' directory becomes a file, then a directory again; then
    // `.gate` goes and comes back.
    repo.remove(TASKS.as_bytes());
    repo.write(TASKS, "a file where the records were\n");
    repo.commit_all("records become a file");
    repo.remove(TASKS.as_bytes());
    g.record(&format!("{TASKS}/back.md"));
    repo.commit_all("records again");
    repo.remove(b".gate");
    repo.commit_all("no .gate");
    g.record(&format!("{TASKS}/again.md"));
    repo.commit_all(".gate again\n\nTask: T-again\n");
    g.commits(3);

    // A second root with records of its own, merged in.
    repo.git(&["checkout", "-q", "--orphan", "other"]);
    repo.git(&["rm", "-r", "-q", "-f", "--cached", "."]);
    for name in [".gate", "src"] {
        repo.remove(name.as_bytes());
    }
    g.record(&format!("{TASKS}/orphan.md"));
    repo.commit_all("second root\n\nTask: T-orphan\n");
    g.commits(2);
    repo.git(&["checkout", "-q", "-f", "main"]);
    merge(&repo, &["--allow-unrelated-histories", "other"]);

    // An octopus, each branch adding a record.
    for branch in ["o1", "o2"] {
        repo.git(&["checkout", "-q", "-b", branch, "main"]);
        g.record(&format!("{TASKS}/{branch}.md"));
        repo.commit_all(branch);
    }
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--no-ff", "--no-edit", "o1", "o2"]);

    // A merge whose tree is its second parent's.
    repo.git(&["checkout", "-q", "-b", "ff", "main"]);
    g.commits(2);
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--no-ff", "--no-edit", "ff"]);

    g.commits(4);
    repo.git(&["checkout", "-q", "-b", "late", "HEAD~3"]);
    g.commits(3);
    repo.git(&["checkout", "-q", "main"]);
    merge(&repo, &["late"]);
    g.commits(2);
    repo
}

/// The rows below directory `dir` (all of them for the root).
fn below(rows: Vec<Row>, dir: &str) -> Vec<Row> {
    let prefix = format!("{dir}/");
    rows.into_iter()
        .filter(|(_, path, _)| dir.is_empty() || path.starts_with(prefix.as_bytes()))
        .collect()
}

#[test]
fn changes_under_a_directory_are_the_full_diff_and_git_diff_tree_there() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = task_history(0x7a5c);
    let gate = Repo::discover(repo.path()).expect("discover");
    let commits = all_commits(&repo);
    let mut kinds = BTreeSet::new();
    let (mut from_second, mut evil, mut nested) = (0, 0, 0);
    for (commit, parents) in &commits {
        let id = oid(commit);
        let full = gate.changes(id, Renames::Off).expect("changes");
        for dir in [TASKS, ".gate", "src", ""] {
            let under = gate
                .changes_under(id, &RepoPath::from(dir))
                .unwrap_or_else(|e| panic!("changes_under({commit}, {dir:?}): {e}"));
            assert_eq!(
                under.iter().map(|d| d.parent).collect::<Vec<_>>(),
                full.iter().map(|d| d.parent).collect::<Vec<_>>(),
                "{commit} below {dir:?}: the parents"
            );
            for (i, (under, full)) in under.iter().zip(&full).enumerate() {
                let what = format!("{commit} parent #{i} below {dir:?}");
                let git = below(
                    git_diff(
                        &repo,
                        parents.get(i).map(String::as_str),
                        commit,
                        "--no-renames",
                    ),
                    dir,
                );
                assert_rows(&format!("{what}: git"), &git, &gate_rows(&under.changes));
                // The same records as the full diff's, in its order.
                let prefix = format!("{dir}/");
                let expected: Vec<_> = full
                    .changes
                    .iter()
                    .filter(|c| dir.is_empty() || c.path.as_bytes().starts_with(prefix.as_bytes()))
                    .cloned()
                    .collect();
                assert_eq!(under.changes, expected, "{what}: the full diff");
            }
            if dir != TASKS {
                continue;
            }
            for d in &under {
                kinds.extend(d.changes.iter().map(|c| c.kind));
                nested += d
                    .changes
                    .iter()
                    .filter(|c| c.path.as_bytes()[TASKS.len() + 1..].contains(&b'/'))
                    .count();
            }
            if parents.len() > 1 {
                let changed = under.iter().filter(|d| !d.changes.is_empty()).count();
                from_second +=
                    usize::from(!under[0].changes.is_empty() && under[1].changes.is_empty());
                evil += usize::from(changed == under.len());
            }
        }
    }
    // The history really holds what the comparison is meant to cover.
    for kind in [
        ChangeKind::Added,
        ChangeKind::Deleted,
        ChangeKind::Modified,
        ChangeKind::TypeChanged,
    ] {
        assert!(kinds.contains(&kind), "no {kind:?} record: {kinds:?}");
    }
    assert!(nested > 0, "no change below a nested directory");
    assert!(
        from_second > 0,
        "no merge taking records from its second parent"
    );
    assert!(evil > 0, "no merge changing records against every parent");
}

#[test]
fn tasks_touched_are_what_git_log_shows_the_range_add_change_or_name() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = task_history(0x7a5d);
    let gate = Repo::discover(repo.path()).expect("discover");
    let all = all_commits(&repo);
    let commits: Vec<String> = all.iter().map(|(c, _)| c.clone()).collect();
    let mut rng = Rng::new(5);
    let mut ranges: Vec<(String, String)> = vec![
        (repo.rev("main~5"), repo.rev("main")),
        (repo.rev("side"), repo.rev("main")),
        (repo.rev("other"), repo.rev("main")),
    ];
    // Each merge from each of its parents: what it changed against every
    // parent counts, though the range holds no commit that made it.
    for (merge, parents) in all.iter().filter(|(_, p)| p.len() > 1) {
        ranges.extend(parents.iter().map(|p| (p.clone(), merge.clone())));
    }
    for _ in 0..12 {
        ranges.push((rng.pick(&commits).clone(), rng.pick(&commits).clone()));
    }
    let mut records = 0;
    for (base, tip) in &ranges {
        let range = format!("{base}..{tip}");
        // The trailers, and every record path a commit of the range added or
        // changed against its parent — a merge against every parent (`-c`):
        // a record one side brought in is that side's commits' (no
        // pathspec, which would simplify the history).
        let mut want: BTreeSet<String> = repo
            .git(&["log", "--format=%(trailers:key=Task,valueonly)", &range])
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect();
        let names = repo.git(&[
            "log",
            "-c",
            "--no-renames",
            "--name-only",
            "--diff-filter=d",
            "--format=",
            &range,
        ]);
        for name in names.lines() {
            if let Some(id) = name
                .strip_prefix(".gate/tasks/")
                .and_then(|n| n.strip_suffix(".md"))
                .filter(|id| !id.contains('/') && gate::ids::task_id(id).is_ok())
            {
                records += 1;
                want.insert(id.to_owned());
            }
        }
        let got = gate::checks::range_rules::tasks_touched(&gate, oid(tip), &[oid(base)], "Task")
            .unwrap_or_else(|e| panic!("tasks_touched({range}): {e}"));
        assert_eq!(
            got,
            want.into_iter().collect::<Vec<_>>(),
            "tasks touched by {range}"
        );
    }
    assert!(records > 0, "no range added or changed a record");
}

/// Every check off but the binding, which is required.
const BINDING_REQUIRED: &str = "version: 1\nbinding: required\nscope: off\nprovenance:\n  mode: off\n  merges: refuse\nreceipts:\n  mode: off\nbrief:\n  mode: off\n";

/// `gate check --range BASE..HEAD --only binding --json` (and `extra`),
/// which must refuse: its report.
fn binding_refused(repo: &TestRepo, base: &str, extra: &[&str]) -> serde_json::Value {
    let range = format!("{base}..HEAD");
    let mut args = vec![
        "check",
        "--range",
        range.as_str(),
        "--only",
        "binding",
        "--json",
    ];
    args.extend_from_slice(extra);
    let out = repo.gate().args(&args).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{doc:#}");
    doc
}

#[test]
fn under_a_required_binding_a_tasks_scope_beyond_its_issues_paths_is_refused_in_ci() {
    // The task was started where the binding was off, with a scope wider
    // than issue 42's paths (src/export/**, docs/export.md).
    let repo = crate::fixture::plan_repo("off");
    let base = repo.head();
    let out = crate::fixture::start(
        &repo,
        &["--issue", "42", "--scope", "src/**", "--id", "T-42"],
        "Export.\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", crate::fixture::show(&out));
    repo.write("src/export/csv.rs", "// csv\n");
    repo.commit_all("export: CSV\n\nTask: T-42");
    // The rules that judge: the binding required, the same plan.
    repo.write(".gate/policy.yaml", BINDING_REQUIRED);
    repo.commit_all("policy: binding required\n\nTask: T-42");
    let doc = binding_refused(&repo, &base, &["--policy-from", "HEAD"]);
    let findings = doc["checks"][0]["findings"].as_array().unwrap();
    assert!(
        findings.iter().any(|f| f["cause"] == "scope_beyond_issue"
            && f["message"].as_str().unwrap().contains("src/**")),
        "{doc:#}"
    );
}

#[test]
fn a_range_that_widens_its_issues_paths_is_judged_by_the_trusted_paths() {
    let repo = crate::fixture::plan_repo("off");
    repo.write(".gate/policy.yaml", BINDING_REQUIRED);
    let base = repo.commit_all("policy: binding required");
    // The range widens issue 42's paths to src/**, then starts a task with
    // that scope (allowed locally: HEAD's plan covers it now).
    let plan = std::fs::read_to_string(repo.path().join(".gate/plan.yaml")).unwrap();
    let widened = plan.replace(
        "paths: [\"src/export/**\", \"docs/export.md\"]",
        "paths: [\"src/**\", \"docs/export.md\"]",
    );
    assert_ne!(plan, widened);
    repo.write(".gate/plan.yaml", widened);
    repo.commit_all("plan: issue 42 may touch all of src");
    let out = crate::fixture::start(
        &repo,
        &["--issue", "42", "--scope", "src/**", "--id", "T-42"],
        "Export.\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", crate::fixture::show(&out));
    repo.write("src/lib.rs", "// wider\n");
    repo.commit_all("work\n\nTask: T-42");
    let doc = binding_refused(&repo, &base, &[]);
    let causes: Vec<&str> = doc["checks"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["cause"].as_str().unwrap())
        .collect();
    assert!(causes.contains(&"scope_beyond_issue"), "{doc:#}");
    assert!(causes.contains(&"plan_loosened"), "{doc:#}");
}
