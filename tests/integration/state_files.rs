//! gate's own state under hostile files, crashes and links (docs/tasks.md,
//! "Local state"): a FIFO, a link or an oversized file in place of a state
//! file is refused and named, never waited on; a committed `.gate` or
//! `.gate/tasks` that is a link is never written through; a write killed
//! half done leaves nothing a commit can pick up.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::fixture::{self, git_path, plan_repo, show};
use crate::support::{TestRepo, git_env};

/// How long a run may take before the test takes it for blocked (on a
/// FIFO): far above any run's time, so it never decides a pass, only turns
/// a hang into a failure.
const HANG: Duration = Duration::from_secs(60);

/// `gate args` in `repo` as `TestRepo::gate` runs it, stopped (and the
/// test failed) when it has not ended after [`HANG`].
fn gate_bounded(repo: &TestRepo, args: &[&str], envs: &[(&str, &str)]) -> Output {
    gate_bounded_in(repo, repo.path(), args, envs)
}

/// [`gate_bounded`] in the work tree `dir` of `repo` (a linked one).
fn gate_bounded_in(repo: &TestRepo, dir: &Path, args: &[&str], envs: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("gate"));
    cmd.current_dir(dir)
        .env_clear()
        .envs(git_env())
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", repo.scratch("home"))
        .envs(envs.iter().copied())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn gate");
    let start = Instant::now();
    while child.try_wait().expect("wait for gate").is_none() {
        if start.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("gate {args:?} still running after {HANG:?}: blocked");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("gate's output")
}

/// Replace `path` with a FIFO nobody writes to.
fn fifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let out = Command::new("mkfifo").arg(path).output().unwrap();
    assert!(out.status.success(), "mkfifo: {out:?}");
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The files under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// A repository with task T-42 started and a receipt of `export-tests`.
fn started_repo() -> TestRepo {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    let out = gate_bounded(&repo, &["verify", "export-tests"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    repo
}

#[test]
fn a_fifo_as_the_active_pointer_is_unknown_naming_it_in_every_door() {
    let repo = started_repo();
    fifo(&git_path(&repo, "gate/active"));
    for args in [
        &["status"][..],
        &["check"],
        &["hook", "pre-commit"],
        &["task", "show"],
        &["verify", "export-tests"],
    ] {
        let out = gate_bounded(&repo, args, &[]);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {}", show(&out));
        assert!(
            text(&out).contains("gate/active") && text(&out).contains("FIFO"),
            "{args:?}: {}",
            show(&out)
        );
    }
}

#[test]
fn an_oversized_active_pointer_is_refused_by_its_size_unread() {
    let repo = started_repo();
    let pointer = git_path(&repo, "gate/active");
    // Sparse: 4 GiB that take no room, and would take 4 GiB of memory read.
    let file = std::fs::File::create(&pointer).unwrap();
    file.set_len(4 << 30).unwrap();
    drop(file);
    for args in [&["status"][..], &["check"], &["hook", "pre-commit"]] {
        let out = gate_bounded(&repo, args, &[]);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {}", show(&out));
        assert!(
            text(&out).contains("gate/active") && text(&out).contains("4294967296 bytes"),
            "{args:?}: {}",
            show(&out)
        );
    }
}

#[test]
fn a_fifo_as_a_receipt_is_an_unreadable_receipt_not_a_hang() {
    let repo = started_repo();
    let receipts = files_under(&git_path(&repo, "gate/receipts"));
    assert_eq!(receipts.len(), 1, "{receipts:?}");
    fifo(&receipts[0]);
    repo.write(
        ".gate/policy.yaml",
        fixture::policy("required")
            .replace("receipts:\n  mode: off", "receipts:\n  mode: required"),
    );
    let out = gate_bounded(&repo, &["status"], &[]);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert!(text(&out).contains("FIFO"), "{}", show(&out));
    let out = gate_bounded(&repo, &["check", "--only", "receipts"], &[]);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
}

#[test]
fn fifos_as_run_markers_and_cache_files_are_passed_over_not_waited_on() {
    let repo = started_repo();
    let before = gate_bounded(&repo, &["status"], &[]);
    assert_eq!(before.status.code(), Some(0), "{}", show(&before));
    let caches = files_under(&git_path(&repo, "gate/cache"));
    assert!(!caches.is_empty(), "a status run leaves a cache");
    for cache in &caches {
        fifo(cache);
    }
    fifo(&git_path(&repo, "gate/running/export-tests/1-x.json"));
    fifo(&git_path(&repo, "gate/running/export-tests/.2-y.tmp"));
    let out = gate_bounded(&repo, &["status"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(out.stdout, before.stdout, "{}", show(&out));
}

#[test]
fn a_fifo_as_the_recorded_task_is_unknown_naming_it() {
    // The task is not committed: its frozen fields are judged from the
    // version `gate start` recorded (docs/trust.md).
    let repo = started_repo();
    fifo(&git_path(&repo, "gate/recorded/T-42.md"));
    for args in [&["check"][..], &["hook", "pre-commit"]] {
        let out = gate_bounded(&repo, args, &[]);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {}", show(&out));
        assert!(
            text(&out).contains("recorded/T-42.md"),
            "{args:?}: {}",
            show(&out)
        );
    }
}

#[test]
fn a_fifo_as_a_start_record_is_named_by_post_checkout() {
    let repo = started_repo();
    fifo(&git_path(&repo, "gate/started/T-42"));
    let head = repo.head();
    let out = gate_bounded(&repo, &["hook", "post-checkout", &head, &head, "1"], &[]);
    // post-checkout never fails a checkout; it says what it could not read.
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(text(&out).contains("started/T-42"), "{}", show(&out));
}

#[test]
fn a_fifo_as_the_index_or_merge_head_is_unknown_naming_it() {
    let repo = started_repo();
    let merge_head = git_path(&repo, "MERGE_HEAD");
    fifo(&merge_head);
    let out = gate_bounded(&repo, &["hook", "pre-commit"], &[]);
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert!(text(&out).contains("MERGE_HEAD"), "{}", show(&out));
    std::fs::remove_file(&merge_head).unwrap();
    fifo(&git_path(&repo, "index"));
    for args in [
        &["status"][..],
        &["hook", "pre-commit"],
        &["check", "--only", "scope"],
    ] {
        let out = gate_bounded(&repo, args, &[]);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {}", show(&out));
        assert!(text(&out).contains("index"), "{args:?}: {}", show(&out));
    }
}

#[test]
fn a_fifo_as_a_task_policy_or_plan_file_is_unknown_naming_it() {
    for (file, args) in [
        (".gate/tasks/T-42.md", &["check"][..]),
        (".gate/policy.yaml", &["check"]),
        (".gate/plan.yaml", &["plan", "validate"]),
    ] {
        let repo = started_repo();
        fifo(&repo.abs(file.as_bytes()));
        let out = gate_bounded(&repo, args, &[]);
        assert_eq!(out.status.code(), Some(3), "{file}: {}", show(&out));
        assert!(text(&out).contains(file), "{file}: {}", show(&out));
    }
}

/// A repository whose committed `.gate/<link>` is a symbolic link to a
/// directory outside it holding what the repository's own would.
fn linked_repo(link: &str) -> (TestRepo, PathBuf) {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    repo.commit_all("the task");
    let outside = repo.scratch("outside");
    std::fs::rename(repo.abs(link.as_bytes()), &outside).unwrap();
    std::os::unix::fs::symlink(&outside, repo.abs(link.as_bytes())).unwrap();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "link"]);
    (repo, outside)
}

/// Every file below `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<_> = files_under(dir)
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    files.sort();
    files
}

#[test]
fn no_verb_writes_through_a_linked_gate_or_tasks_directory() {
    for link in [".gate", ".gate/tasks"] {
        let (repo, outside) = linked_repo(link);
        let before = snapshot(&outside);
        let answer = repo.scratch("answer.txt");
        std::fs::write(&answer, "Yes.\n").unwrap();
        let answer = answer.to_str().unwrap();
        let brief = repo.scratch("brief.txt");
        std::fs::write(&brief, "Another.\n").unwrap();
        let brief = brief.to_str().unwrap();
        let writes: Vec<Vec<&str>> = vec![
            vec!["init", "--force"],
            vec![
                "start", "--scope", "src/**", "--id", "T-9", "--brief", brief,
            ],
            vec!["task", "amend", "--author", "Ada", "--text", "More."],
            vec![
                "task",
                "ask",
                "--author",
                "Ada",
                "--stage",
                "build",
                "--summary",
                "s",
                "--conflict",
                "none",
                "--decided-by",
                "operator",
                "--question-file",
                answer,
                "--answer-file",
                answer,
            ],
            vec!["task", "note", "--author", "Ada", "--text", "Noted."],
            vec!["task", "switch", "T-42"],
            vec!["handover"],
            vec!["task", "finish"],
            vec!["task", "abandon", "--because", "no"],
        ];
        for args in &writes {
            if link == ".gate/tasks" && args[0] == "init" {
                continue; // init writes nothing under .gate/tasks
            }
            let out = gate_bounded(&repo, args, &[]);
            assert_ne!(
                out.status.code(),
                Some(0),
                "{link}: {args:?}: {}",
                show(&out)
            );
            assert!(
                text(&out).contains(link) && text(&out).contains("symbolic link"),
                "{link}: {args:?} names the link: {}",
                show(&out)
            );
            assert_eq!(snapshot(&outside), before, "{link}: {args:?} wrote outside");
        }
        // Reads through the link are unknown, naming it.
        for args in [
            &["check"][..],
            &["status"],
            &["task", "list"],
            &["hook", "pre-commit"],
        ] {
            let out = gate_bounded(&repo, args, &[]);
            assert_eq!(
                out.status.code(),
                Some(3),
                "{link}: {args:?}: {}",
                show(&out)
            );
            assert!(
                text(&out).contains("symbolic link"),
                "{link}: {args:?}: {}",
                show(&out)
            );
        }
    }
}

/// Every file and link below `dir` (links not followed), with its bytes
/// (a link's target).
fn entries_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&path).unwrap();
            out.push((path, target.into_os_string().into_encoded_bytes()));
        } else if meta.is_dir() {
            out.push((path.clone(), Vec::new()));
            out.extend(entries_under(&path));
        } else {
            out.push((path.clone(), std::fs::read(&path).unwrap()));
        }
    }
    out.sort();
    out
}

/// A state directory under `<git-dir>/gate` that is a symbolic link —
/// `gate` itself, `receipts`, or one check's directory in it — was
/// followed: `gate verify` wrote its receipt, log and run marker wherever
/// the link pointed. Every door now refuses it (exit 3), naming the link
/// and saying to remove it, and nothing is written through it.
#[test]
fn a_state_directory_that_is_a_link_is_refused_and_never_written_through() {
    for link in [
        "gate/receipts",
        "gate/receipts/export-tests",
        "gate/cache",
        "gate",
    ] {
        let repo = started_repo();
        let inside = git_path(&repo, link);
        let outside = repo.scratch("outside");
        std::fs::create_dir_all(&inside).unwrap();
        std::fs::rename(&inside, &outside).unwrap();
        std::os::unix::fs::symlink(&outside, &inside).unwrap();
        let before = entries_under(&outside);
        for args in [
            &["verify", "export-tests"][..],
            &["status"],
            &["check"],
            &["hook", "pre-commit"],
            &["task", "switch", "T-42"],
        ] {
            let out = gate_bounded(&repo, args, &[]);
            assert_eq!(
                out.status.code(),
                Some(3),
                "{link}: {args:?}: {}",
                show(&out)
            );
            let said = text(&out);
            assert!(
                said.contains(&format!(
                    ".git/{link}: gate's state directory is a symbolic link"
                )) && said.contains("remove the link"),
                "{link}: {args:?}: {}",
                show(&out)
            );
            assert_eq!(
                entries_under(&outside),
                before,
                "{link}: {args:?} wrote through the link"
            );
        }
        // Nothing was made beside the link either: it is still the link.
        assert!(
            std::fs::symlink_metadata(&inside)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
}

/// The untracked files `git status` would offer to `git add -A`.
fn untracked(repo: &TestRepo) -> Vec<String> {
    repo.git(&["status", "--porcelain", "--untracked-files=all"])
        .lines()
        .filter_map(|l| l.strip_prefix("?? ").map(str::to_owned))
        .collect()
}

#[test]
fn a_write_killed_before_its_rename_leaves_nothing_a_commit_picks_up() {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    repo.commit_all("the task");
    let crash = [("GATE_TEST_CRASH", "before-rename")];
    let brief = repo.scratch("brief.txt");
    std::fs::write(&brief, "Another.\n").unwrap();
    let brief = brief.to_str().unwrap();
    for args in [
        &["task", "amend", "--author", "Ada", "--text", "More."][..],
        &["task", "note", "--author", "Ada", "--text", "Noted."],
        &[
            "start", "--scope", "src/**", "--id", "T-9", "--brief", brief,
        ],
    ] {
        let out = gate_bounded(&repo, args, &crash);
        assert_eq!(out.status.code(), None, "{args:?} crashed: {}", show(&out));
        assert_eq!(untracked(&repo), Vec::<String>::new(), "{args:?}");
        assert_eq!(repo.git(&["status", "--porcelain"]), "", "{args:?}");
    }
    // The next writes go through, and the file is a valid task.
    let out = gate_bounded(
        &repo,
        &["task", "amend", "--author", "Ada", "--text", "After."],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = gate_bounded(&repo, &["task", "validate", "--task", "T-42"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let names: Vec<_> = std::fs::read_dir(repo.abs(b".gate/tasks"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["T-42.md"]);
    // Retrying the killed start removes what it left under the git directory.
    let out = gate_bounded(
        &repo,
        &[
            "start", "--scope", "src/**", "--id", "T-9", "--brief", brief,
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let debris: Vec<_> = std::fs::read_dir(repo.abs(b".git/gate/tmp"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(debris, Vec::<std::ffi::OsString>::new());
}

#[test]
fn a_write_killed_in_a_linked_worktree_leaves_nothing_there_either() {
    let repo = plan_repo("required");
    let linked = repo.scratch("linked");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "side",
        linked.to_str().unwrap(),
    ]);
    let brief = repo.scratch("brief.txt");
    std::fs::write(&brief, "Export from the side branch.\n").unwrap();
    let start = [
        "start",
        "--issue",
        "42",
        "--brief",
        brief.to_str().unwrap(),
        "--id",
        "T-42",
    ];
    let out = gate_bounded_in(&repo, &linked, &start, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    repo.git_in(&linked, &["add", "-A"]);
    repo.git_in(&linked, &["commit", "-q", "--no-verify", "-m", "the task"]);
    let crash = [("GATE_TEST_CRASH", "before-rename")];
    let amend = ["task", "amend", "--author", "Ada", "--text", "More."];
    let out = gate_bounded_in(&repo, &linked, &amend, &crash);
    assert_eq!(out.status.code(), None, "crashed: {}", show(&out));
    let status = repo.git_in(&linked, &["status", "--porcelain", "--untracked-files=all"]);
    assert_eq!(status, "", "nothing to commit in the linked worktree");
    let out = gate_bounded_in(&repo, &linked, &amend, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = std::fs::read_to_string(linked.join(".gate/tasks/T-42.md")).unwrap();
    assert!(text.contains("More."), "{text}");
}
