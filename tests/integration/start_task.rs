//! `gate start` and `gate task list | show | switch`.

use crate::fixture::{self, git_path, plan_repo, show, start};
use crate::golden::{assert_golden, redact_fresh_ids, transcript};
use crate::support::TestRepo;

fn brief_of(repo: &TestRepo, id: &str) -> String {
    let task = gate::task::load(repo.path(), id).expect("task loads");
    task.body.brief.expect("brief").text
}

/// The active task's id, which must be a default id `<base>-<5 fresh
/// characters>` (docs/tasks.md, decision 0024).
pub(crate) fn fresh_id(repo: &TestRepo, base: &str) -> String {
    let id = std::fs::read_to_string(git_path(repo, "gate/active"))
        .unwrap()
        .trim()
        .to_string();
    assert_fresh(&id, base);
    id
}

/// `id` is `<base>-` and 5 characters of Crockford's base 32, lowercase.
pub(crate) fn assert_fresh(id: &str, base: &str) {
    let fresh = id
        .strip_prefix(base)
        .and_then(|rest| rest.strip_prefix('-'))
        .unwrap_or_else(|| panic!("{id} is not {base}-…"));
    assert_eq!(fresh.len(), 5, "{id}");
    assert!(
        fresh
            .bytes()
            .all(|c| b"0123456789abcdefghjkmnpqrstvwxyz".contains(&c)),
        "{id}"
    );
}

#[test]
fn start_records_names_scope_baseline_brief_and_activates() {
    let repo = plan_repo("advisory");
    let out = start(&repo, &["--issue", "42"], "Add CSV export.\n");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let id = fresh_id(&repo, "T-42");
    let task = gate::task::load(repo.path(), &id).unwrap();
    let r = &task.record;
    assert_eq!(r.issue.as_deref(), Some("42"));
    assert_eq!(r.intent, None);
    assert_eq!(r.scope, vec!["src/export/**", "docs/export.md"]);
    assert_eq!(r.baseline, repo.head());
    assert_eq!(r.operator, "Test Operator");
    assert_eq!(r.created_by, "gate start");
    assert_eq!(r.id, id);
    assert_eq!(brief_of(&repo, &id), "Add CSV export.\n");
    let said = redact_fresh_ids(&transcript(Some(&repo), &out), "T-42");
    assert!(!said.contains(&id), "{said}");
    assert_golden("start/issue-42.txt", &said);
}

#[test]
fn briefs_are_kept_byte_for_byte() {
    let repo = plan_repo("advisory");
    let briefs = [
        "no final newline",
        "trailing spaces   \n\ttabs\t\n\n\n",
        "crlf\r\nlines\r\n",
        "unicode: é 日本 🚀\n",
        "## Addenda\n\n## Implementation notes\n---\nfront: matter?\n---\n",
        "```rust\nfn main() {}\n```\n````\n",
    ];
    for (i, brief) in briefs.iter().enumerate() {
        let id = format!("T-b{i}");
        let out = start(&repo, &["--issue", "42", "--id", &id], brief);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        assert_eq!(brief_of(&repo, &id), *brief, "brief {i}");
    }
}

#[test]
fn default_ids_are_fresh_and_an_explicit_id_is_never_reused() {
    let repo = plan_repo("advisory");
    let first = start(&repo, &["--issue", "42"], "one\n");
    assert_eq!(first.status.code(), Some(0), "{}", show(&first));
    let one = fresh_id(&repo, "T-42");
    let second = start(&repo, &["--issue", "42"], "two\n");
    assert_eq!(second.status.code(), Some(0), "{}", show(&second));
    let two = fresh_id(&repo, "T-42");
    assert_ne!(one, two);
    for id in [&one, &two] {
        assert!(repo.path().join(format!(".gate/tasks/{id}.md")).exists());
    }
    // An explicit id is honoured exactly, once.
    fixture::start_42(&repo);
    assert!(repo.path().join(".gate/tasks/T-42.md").exists());
    for id in ["T-42", one.as_str()] {
        let out = start(&repo, &["--issue", "42", "--id", id], "again\n");
        assert_eq!(out.status.code(), Some(1), "{}", show(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "task id `{id}` is taken: .gate/tasks/{id}.md exists in the work tree"
            )),
            "{err}"
        );
    }
    // Its file gone, the id is still this clone's task's: its local state
    // (the start record) keeps it taken.
    std::fs::remove_file(repo.path().join(format!(".gate/tasks/{one}.md"))).unwrap();
    let out = start(&repo, &["--issue", "42", "--id", &one], "again\n");
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("this clone keeps local state for task {one}")),
        "{err}"
    );
}

/// Nothing is written by a refused start: no task file, no active pointer.
fn assert_nothing_written(repo: &TestRepo) {
    assert!(
        !repo.path().join(".gate/tasks").exists(),
        "a task file was written"
    );
    assert!(
        !git_path(repo, "gate/active").exists(),
        "the active pointer was written"
    );
}

#[test]
fn refused_starts_write_nothing() {
    let cases: &[(&[&str], &str, i32, &str)] = &[
        (&["--issue", "99"], "b\n", 1, "unknown_issue"),
        (&["--intent", "I-nope"], "b\n", 1, "unknown_intent"),
        (
            &["--exempt", "nope", "--because", " "],
            "b\n",
            1,
            "exemption_without_reason",
        ),
        (
            &[
                "--exempt",
                "dependency-bump",
                "--because",
                "lock",
                "--issue",
                "42",
            ],
            "b\n",
            1,
            "exemption_names_work",
        ),
        (&["--path", "README.md"], "b\n", 1, "no_issue_covers_paths"),
        (
            &["--issue", "42", "--id", "../../x"],
            "b\n",
            2,
            "invalid task id",
        ),
        (&["--issue", "42"], "   \n", 1, "empty"),
        (&["--scope", "/abs"], "b\n", 2, "absolute"),
    ];
    for (args, brief, code, needle) in cases {
        let repo = plan_repo("advisory");
        let out = start(&repo, args, brief);
        assert_eq!(out.status.code(), Some(*code), "{args:?}\n{}", show(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(needle),
            "{args:?}: want {needle}\n{}",
            show(&out)
        );
        assert_nothing_written(&repo);
    }
}

#[test]
fn an_exemption_reports_all_its_faults_together() {
    let repo = plan_repo("advisory");
    let out = start(
        &repo,
        &["--exempt", "nope", "--because", "", "--issue", "42"],
        "b\n",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    for cause in [
        "unknown_exemption",
        "exemption_without_reason",
        "exemption_names_work",
    ] {
        assert!(err.contains(cause), "{cause}\n{err}");
    }
    assert_nothing_written(&repo);
}

#[test]
fn oversized_and_missing_briefs_are_refused() {
    let repo = plan_repo("advisory");
    let big = "x".repeat(100 * 1024 + 1);
    let out = start(&repo, &["--issue", "42"], &big);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("100 KiB"));
    let out = repo
        .gate()
        .args(["start", "--issue", "42"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_nothing_written(&repo);
}

#[test]
fn other_namings_work() {
    let repo = plan_repo("advisory");
    let out = start(&repo, &["--path", "src/export/csv.rs"], "by path\n");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let id = fresh_id(&repo, "T-42");
    assert_eq!(
        gate::task::load(repo.path(), &id)
            .unwrap()
            .record
            .issue
            .as_deref(),
        Some("42")
    );
    // Paths covered by an intent's issue and a maintenance issue bind to the intent's.
    let out = start(
        &repo,
        &["--path", "docs/export.md", "--id", "T-p2"],
        "by path\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let t = gate::task::load(repo.path(), "T-p2").unwrap();
    assert_eq!(t.record.issue.as_deref(), Some("42"));
    assert_eq!(t.record.scope, vec!["src/export/**", "docs/export.md"]);
    let out = start(&repo, &["--intent", "I-export"], "by intent\n");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let t = gate::task::load(repo.path(), &fresh_id(&repo, "T-I-export")).unwrap();
    assert_eq!(t.record.intent.as_deref(), Some("I-export"));
    assert_eq!(t.record.scope, vec!["src/export/**", "docs/export.md"]);
    let out = start(
        &repo,
        &[
            "--exempt",
            "dependency-bump",
            "--because",
            "bump serde",
            "--scope",
            "Cargo.lock",
        ],
        "bump\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let t = gate::task::load(repo.path(), &fresh_id(&repo, "T-dependency-bump")).unwrap();
    assert_eq!(t.record.exemption.unwrap().because, "bump serde");
    let out = start(
        &repo,
        &["--exempt", "dependency-bump", "--because", "bump"],
        "bump\n",
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "an exemption needs --scope: {}",
        show(&out)
    );
}

#[test]
fn start_on_an_unborn_branch_is_refused() {
    let repo = TestRepo::new();
    let out = start(&repo, &["--scope", "src/**", "--operator", "Op"], "b\n");
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no commit yet"));
}

#[test]
fn task_list_show_and_switch() {
    let repo = plan_repo("advisory");
    fixture::start_42(&repo);
    let out = start(
        &repo,
        &["--issue", "7", "--operator", "Other", "--id", "T-7"],
        "Fix the typos.\nAll of them.\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let list = repo.gate().args(["task", "list"]).output().unwrap();
    assert_golden("task/list.txt", &transcript(Some(&repo), &list));
    let json = repo
        .gate()
        .args(["task", "list", "--json"])
        .output()
        .unwrap();
    assert_golden("task/list.json", &transcript(Some(&repo), &json));
    let shown = repo.gate().args(["task", "show", "T-7"]).output().unwrap();
    assert_golden("task/show-T-7.txt", &transcript(Some(&repo), &shown));
    let out = repo
        .gate()
        .args(["task", "switch", "T-42"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(
        std::fs::read_to_string(git_path(&repo, "gate/active")).unwrap(),
        "T-42\n"
    );
    let out = repo
        .gate()
        .args(["task", "switch", "T-404"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let out = repo.gate().args(["task", "show"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Add CSV export"),
        "{}",
        show(&out)
    );
}

#[test]
fn a_corrupt_task_file_is_named_with_line_and_key() {
    let repo = plan_repo("advisory");
    fixture::start_42(&repo);
    let path = repo.path().join(".gate/tasks/T-42.md");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replacen("status: active\n", "status: active\nphase: build\n", 1),
    )
    .unwrap();
    let out = repo.gate().args(["task", "show", "T-42"]).output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(".gate/tasks/T-42.md:5"), "{err}");
    assert!(err.contains("phase"), "{err}");
    let list = repo.gate().args(["task", "list"]).output().unwrap();
    assert_eq!(list.status.code(), Some(3));
}

/// The task file and the pointer are the start; the record of the branch it
/// was started on only serves post-checkout. Failing to write it is a
/// warning, not a failure that a second start would meet as "exists".
#[test]
fn an_unwritable_start_record_is_a_warning() {
    let repo = plan_repo("advisory");
    std::fs::create_dir_all(git_path(&repo, "gate")).unwrap();
    std::fs::write(git_path(&repo, "gate/started"), "not a directory\n").unwrap();
    let out = start(
        &repo,
        &["--issue", "42", "--id", "T-42"],
        "Add CSV export.\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(show(&out).contains("was not recorded"), "{}", show(&out));
    assert!(gate::task::load(repo.path(), "T-42").is_ok());
    assert_eq!(
        std::fs::read_to_string(git_path(&repo, "gate/active")).unwrap(),
        "T-42\n"
    );
}

/// `gate` run in `sub` (a directory of the repository), as a user in it would.
fn gate_in(repo: &TestRepo, sub: &str, args: &[&str], stdin: &str) -> std::process::Output {
    repo.gate()
        .current_dir(repo.path().join(sub))
        .args(args)
        .write_stdin(stdin.as_bytes().to_vec())
        .output()
        .unwrap()
}

#[test]
fn scope_and_paths_given_in_a_subdirectory_are_relative_to_it() {
    let repo = plan_repo("required");
    let out = gate_in(
        &repo,
        "src",
        &[
            "start",
            "--exempt",
            "dependency-bump",
            "--because",
            "tidy",
            "--scope",
            "export/**",
            "--scope",
            ":/docs/**",
            "--scope",
            "../README.md",
            "--brief",
            "-",
        ],
        "from src\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let t = gate::task::load(repo.path(), &fresh_id(&repo, "T-dependency-bump")).unwrap();
    assert_eq!(t.record.scope, ["src/export/**", "docs/**", "README.md"]);
    // The git CLI stages a path under src/export: the scope covers it.
    repo.write("src/export/csv.rs", "// csv\n");
    repo.git(&["add", "src/export/csv.rs"]);
    let out = repo
        .gate()
        .args(["check", "--staged", "--only", "scope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    // --path names the issue covering src/export/csv.rs, from the current
    // directory or from the one -C names, as git -C reads paths.
    let src = repo.path().join("src");
    for out in [
        gate_in(&repo, "src/export", &["binding", "--path", "csv.rs"], ""),
        gate_in(
            &repo,
            "docs",
            &["-C", "../src", "binding", "--path", "export/csv.rs"],
            "",
        ),
        gate_in(
            &repo,
            ".",
            &[
                "-C",
                src.to_str().unwrap(),
                "binding",
                "--path",
                "export/csv.rs",
            ],
            "",
        ),
    ] {
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("issues: 42"),
            "{}",
            show(&out)
        );
    }
}

#[test]
fn a_path_that_climbs_out_of_the_repository_is_a_usage_error() {
    let repo = plan_repo("advisory");
    for args in [
        &[
            "start", "--issue", "42", "--scope", "../../x", "--brief", "-",
        ][..],
        &["start", "--path", "../../x", "--brief", "-"][..],
        &["binding", "--path", "../../x"][..],
    ] {
        let out = gate_in(&repo, "src", args, "b\n");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", show(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("climbs out of the repository"),
            "{args:?}: {}",
            show(&out)
        );
    }
    assert_nothing_written(&repo);
}

#[test]
fn names_are_trimmed_and_a_blank_one_names_nothing() {
    let repo = plan_repo("advisory");
    let out = repo
        .gate()
        .args(["binding", "--issue", "  ", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("nothing_named"), "{}", show(&out));
    assert!(!stdout.contains("unknown_issue"), "{}", show(&out));
    let out = start(
        &repo,
        &["--intent", " I-export ", "--id", "T-I-export"],
        "trimmed\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let t = gate::task::load(repo.path(), "T-I-export").unwrap();
    assert_eq!(t.record.intent.as_deref(), Some("I-export"));
    assert_eq!(t.record.scope, vec!["src/export/**", "docs/export.md"]);
    // A task file's names are read the same way.
    let file = repo.path().join(".gate/tasks/T-I-export.md");
    let text = std::fs::read_to_string(&file).unwrap();
    let text = text
        .replace("intent: \"I-export\"", "intent: \" I-export \"")
        .replace("issue: null", "issue: \"  \"");
    std::fs::write(&file, text).unwrap();
    let t = gate::task::load(repo.path(), "T-I-export").unwrap();
    assert_eq!(t.record.intent.as_deref(), Some("I-export"));
    assert_eq!(t.record.issue, None);
}

#[test]
fn a_brief_from_a_terminal_is_refused_not_waited_on() {
    // util-linux `script` gives the command a terminal for stdin.
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        crate::support::skip(
            crate::this_test!(),
            "`script` (util-linux) is not installed, so no terminal can be made",
            None,
        );
        return;
    }
    let repo = plan_repo("advisory");
    let gate = assert_cmd::cargo::cargo_bin!("gate");
    let out = std::process::Command::new("script")
        .current_dir(repo.path())
        .envs(crate::support::git_env())
        .args(["-q", "-e", "-c"])
        .arg(format!("{} start --issue 42 --brief -", gate.display()))
        .arg("/dev/null")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(text.contains("stdin is a terminal"), "{}", show(&out));
    assert!(text.contains("here-doc"), "{}", show(&out));
    assert_nothing_written(&repo);
    // An empty stdin is refused, with what to do.
    let out = start(&repo, &["--issue", "42"], "");
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("pipe the brief in"),
        "{}",
        show(&out)
    );
    assert_nothing_written(&repo);
}

#[test]
fn under_a_required_binding_start_refuses_a_scope_beyond_the_issues_paths() {
    let repo = crate::fixture::plan_repo("off");
    repo.write(
        ".gate/policy.yaml",
        "version: 1\nbinding: required\nexemptions:\n  - id: dependency-bump\n    description: Lockfile-only updates\nscope: off\nprovenance:\n  mode: off\n  merges: refuse\nreceipts:\n  mode: off\nbrief:\n  mode: off\n",
    );
    repo.commit_all("binding required");
    // Beyond issue 42's paths (src/export/**, docs/export.md): refused,
    // as `gate task scope add` refuses it; nothing written.
    let out = crate::fixture::start(&repo, &["--issue", "42", "--scope", "src/**"], "Export.\n");
    assert_eq!(out.status.code(), Some(1), "{}", crate::fixture::show(&out));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("src/** lies outside the paths of the task (issue 42)"),
        "{said}"
    );
    assert!(!repo.path().join(".gate/tasks").exists());
    // Within them: started.
    let out = crate::fixture::start(
        &repo,
        &["--issue", "42", "--scope", "src/export/csv/**"],
        "Export.\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", crate::fixture::show(&out));
}

#[test]
fn an_exemption_is_not_bound_to_issue_paths_nor_a_start_without_required_binding() {
    let repo = crate::fixture::plan_repo("off");
    repo.write(
        ".gate/policy.yaml",
        "version: 1\nbinding: required\nexemptions:\n  - id: dependency-bump\n    description: Lockfile-only updates\nscope: off\nprovenance:\n  mode: off\n  merges: refuse\nreceipts:\n  mode: off\nbrief:\n  mode: off\n",
    );
    repo.commit_all("binding required");
    let out = crate::fixture::start(
        &repo,
        &[
            "--exempt",
            "dependency-bump",
            "--because",
            "Bump the lockfile.",
            "--scope",
            "Cargo.lock",
        ],
        "Bump.\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", crate::fixture::show(&out));
    let other = crate::fixture::plan_repo("off");
    let out = crate::fixture::start(&other, &["--issue", "42", "--scope", "src/**"], "Export.\n");
    assert_eq!(out.status.code(), Some(0), "{}", crate::fixture::show(&out));
}

/// The binding source trims a path as it trims a name (issue 32): `--path
/// ' src/export/csv.rs '` binds as `src/export/csv.rs`, and a blank
/// `--path` is dropped as a blank `--issue` is — in `gate binding`, `gate
/// start` and `gate may-touch`, and in the MCP tools, which run them.
/// Before, the padded path was `no_issue_covers_paths` and the blank one
/// a usage error (exit 2).
#[test]
fn paths_are_trimmed_like_names_and_a_blank_one_is_dropped() {
    let repo = plan_repo("advisory");
    let binding = |args: &[&str]| {
        let out = repo
            .gate()
            .arg("binding")
            .args(args)
            .arg("--json")
            .output()
            .unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", show(&out)));
        (out.status.code(), doc)
    };
    let (code, plain) = binding(&["--path", "src/export/csv.rs"]);
    assert_eq!(code, Some(0), "{plain}");
    assert_eq!(plain["standing"], "bound", "{plain}");
    let (code, padded) = binding(&["--path", " src/export/csv.rs "]);
    assert_eq!(code, Some(0), "{padded}");
    assert_eq!(padded, plain, "a padded path binds as the path");
    let (code, blank) = binding(&["--path", "src/export/csv.rs", "--path", "  "]);
    assert_eq!(code, Some(0), "{blank}");
    assert_eq!(blank, plain, "a blank path is dropped");
    // Only a blank path: nothing named, as a blank --issue.
    let (code, nothing) = binding(&["--path", " "]);
    assert_eq!(code, Some(1), "{nothing}");
    assert!(nothing.to_string().contains("nothing_named"), "{nothing}");
    // start records the issue the trimmed path names.
    let out = start(
        &repo,
        &[
            "--path",
            " src/export/csv.rs ",
            "--path",
            "",
            "--id",
            "T-trim",
        ],
        "trimmed\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let t = gate::task::load(repo.path(), "T-trim").unwrap();
    assert_eq!(t.record.issue.as_deref(), Some("42"), "{:?}", t.record);
    // may-touch judges the trimmed path, and names it trimmed.
    let touch = |paths: &[&str]| {
        let out = repo
            .gate()
            .arg("may-touch")
            .args(paths)
            .arg("--json")
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, padded) = touch(&[" src/export/csv.rs ", " "]);
    assert_eq!(touch(&["src/export/csv.rs"]), (code, padded.clone()));
    let (code, _) = touch(&[" ", ""]);
    assert_eq!(code, Some(2), "every path blank is a usage error");
}
