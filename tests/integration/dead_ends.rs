//! Issue 13, "no dead ends": every refusal of the daily loop names an
//! action that gets the honest worker through without `--no-verify`, and
//! that action works — driven through real `git commit`, `git push` and
//! installed hooks.

use std::process::Output;

use crate::fixture::{self, plan_repo, show};
use crate::golden::{assert_golden, transcript};
use crate::support::TestRepo;

fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn gate_ok(repo: &TestRepo, args: &[&str]) -> Output {
    let out = repo.gate().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "gate {args:?}\n{}", show(&out));
    out
}

fn install(repo: &TestRepo) {
    gate_ok(repo, &["install"]);
}

/// A bare `origin` holding `main` as it is now (the history before gate
/// is on the remote already).
fn with_origin(repo: &TestRepo) -> TestRepo {
    let remote = TestRepo::bare();
    repo.git(&["remote", "add", "origin", remote.path().to_str().unwrap()]);
    repo.git(&["push", "-q", "origin", "main"]);
    remote
}

/// `git push origin main` through the hooks.
fn push(repo: &TestRepo) -> Output {
    repo.git_may_fail(&["push", "-q", "origin", "main"])
}

/// What CI runs: `gate check --range BASE..HEAD`, with `extra` flags.
fn check_range(repo: &TestRepo, base: &str, extra: &[&str]) -> Output {
    repo.gate()
        .args(["check", "--range", &format!("{base}..HEAD")])
        .args(extra)
        .output()
        .unwrap()
}

/// Run the command a reminder names, through `sh` (it is one line of
/// shell), in `dir` with the tests' isolated git environment.
fn run_command(dir: &std::path::Path, command: &str) -> Output {
    std::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .envs(crate::support::git_env())
        .output()
        .unwrap()
}

/// A transcript for a golden file, with every commit id (7, 12 or 40 hex
/// digits standing alone) as `[ID]` — task files carry the time they were
/// made, so the commits that hold them differ from run to run — and the
/// temporary remote as `[REMOTE]`.
fn golden_text(repo: &TestRepo, out: &Output) -> String {
    let mut text = transcript(Some(repo), out);
    while let Some(at) = text.find("'/tmp/") {
        let end = text[at + 1..].find('\'').map_or(text.len(), |e| at + 2 + e);
        text.replace_range(at..end, "[REMOTE]");
    }
    let mut redacted = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, redacted: &mut String| {
        let hex = word
            .chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c));
        if hex && [7, 12, 40].contains(&word.len()) {
            redacted.push_str("[ID]");
        } else {
            redacted.push_str(word);
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            word.push(c);
        } else {
            flush(&mut word, &mut redacted);
            redacted.push(c);
        }
    }
    flush(&mut word, &mut redacted);
    redacted
}

/// A policy with every check at `mode` and the brief check too.
fn with_brief(repo: &TestRepo, mode: &str) {
    let policy =
        fixture::policy(mode).replace("brief:\n  mode: off", &format!("brief:\n  mode: {mode}"));
    repo.write(".gate/policy.yaml", policy);
    repo.commit_all("brief checked");
}

/// Every check `required` but the receipts (which need `gate verify` runs).
fn all_required(repo: &TestRepo) {
    let policy = fixture::policy("required")
        .replace("brief:\n  mode: off", "brief:\n  mode: required")
        .replace("binding: off", "binding: required");
    repo.write(".gate/policy.yaml", policy);
    repo.commit_all("all required");
}

// 5. commit reminders

#[test]
fn every_verb_that_changes_the_task_file_says_to_commit_it() {
    let repo = plan_repo("required");
    fixture::start_42(&repo);
    let reminder = "the task file changed: commit .gate/tasks/T-42.md with the work, or alone: git add -- ':/.gate/tasks/T-42.md' && git commit -m 'T-42: ";
    let amend = gate_ok(
        &repo,
        &["task", "amend", "--author", "Op", "--text", "Also TSV.\n"],
    );
    assert_golden("task/amend.txt", &transcript(Some(&repo), &amend));
    let note = gate_ok(&repo, &["task", "note", "--text", "CSV first."]);
    let handover = gate_ok(&repo, &["handover"]);
    for (what, out) in [
        ("amendment", &amend),
        ("note", &note),
        ("handover", &handover),
    ] {
        assert!(
            said(out).contains(&format!("{reminder}{what}' -m 'Task: T-42'")),
            "{what}\n{}",
            show(out)
        );
    }
    // The handover document on stdout stays the document.
    assert!(
        !String::from_utf8_lossy(&handover.stdout).contains("commit"),
        "{}",
        show(&handover)
    );
    let json = gate_ok(&repo, &["task", "note", "--text", "TSV later.", "--json"]);
    assert_golden("task/note.json", &transcript(Some(&repo), &json));
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(doc["schema"], "gate.task-change/1");
    assert_eq!(doc["commit"]["path"], ".gate/tasks/T-42.md");
    // The command works, from a subdirectory too.
    let command = doc["commit"]["command"].as_str().unwrap();
    let out = run_command(&repo.path().join("src"), command);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(
        repo.git(&["status", "--porcelain", "--", ".gate/tasks"]),
        ""
    );
    let message = repo.git(&["log", "-1", "--format=%B"]);
    assert!(message.contains("Task: T-42"), "{message}");
    // A task file HEAD holds as it is needs no commit: nothing is said.
    let again = gate_ok(&repo, &["handover", "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert!(doc["commit"].is_null(), "{}", show(&again));
}

#[test]
fn pre_push_reports_a_task_file_with_uncommitted_addenda() {
    let repo = plan_repo("required");
    with_brief(&repo, "required");
    let _origin = with_origin(&repo);
    fixture::start_42(&repo);
    install(&repo);
    repo.write("src/export/csv.rs", "// csv\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "csv"]);
    gate_ok(&repo, &["task", "note", "--text", "CSV first."]);
    let out = push(&repo);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_golden(
        "dead_ends/push-task-uncommitted.txt",
        &golden_text(&repo, &out),
    );
    let text = said(&out);
    assert!(text.contains("task_uncommitted"), "{text}");
    assert!(
        text.contains(".gate/tasks/T-42.md has changes that are not committed"),
        "{text}"
    );
    // What it says to do gets the push through.
    let command = text
        .lines()
        .find_map(|l| l.split("commit it (").nth(1))
        .and_then(|rest| rest.strip_suffix("), then push again"))
        .unwrap_or_else(|| panic!("no command in:\n{text}"))
        .to_string();
    let out = run_command(repo.path(), &command);
    assert!(out.status.success(), "{}", show(&out));
    let out = push(&repo);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

#[test]
fn under_advisory_an_uncommitted_task_file_is_a_warning_at_push() {
    let repo = plan_repo("advisory");
    with_brief(&repo, "advisory");
    let remote = TestRepo::bare();
    repo.git(&["remote", "add", "origin", remote.path().to_str().unwrap()]);
    fixture::start_42(&repo);
    install(&repo);
    let out = push(&repo);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        said(&out).contains(".gate/tasks/T-42.md is not committed"),
        "{}",
        show(&out)
    );
}

// 1. finish / abandon, then commit

/// The `commit.command` of a `--json` task verb's document.
fn commit_command(out: &Output) -> String {
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", show(out)));
    doc["commit"]["command"]
        .as_str()
        .unwrap_or_else(|| panic!("no commit command:\n{}", show(out)))
        .to_string()
}

/// Regression (issue 13): after `gate task finish` (or `abandon`) the task
/// file changed and no task was active, so committing it under `scope:
/// required` was `no_active_task` — only `--no-verify` got through. The
/// commit of a closed task's own file is accounted for by that task, and
/// pushes.
#[test]
fn finish_then_commit_and_push_the_task_file_under_required() {
    let repo = plan_repo("required");
    all_required(&repo);
    let _origin = with_origin(&repo);
    install(&repo);
    fixture::start_42(&repo);
    repo.write("src/export/csv.rs", "// csv\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "csv"]);
    let finish = gate_ok(&repo, &["task", "finish", "--json"]);
    let out = run_command(repo.path(), &commit_command(&finish));
    assert!(out.status.success(), "{}", show(&out));
    assert_golden(
        "dead_ends/commit-closed-task.txt",
        &golden_text(&repo, &out),
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    let out = push(&repo);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));

    // A task abandoned before its file was ever committed: the same.
    let out = fixture::start(&repo, &["--issue", "7", "--id", "T-7"], "Fix the typos.\n");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let abandon = gate_ok(
        &repo,
        &["task", "abandon", "--because", "Done elsewhere.", "--json"],
    );
    let out = run_command(repo.path(), &commit_command(&abandon));
    assert!(out.status.success(), "{}", show(&out));
    let out = push(&repo);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

/// What the rule lets through is the closed task's own file, changed as
/// the append-only log allows — nothing else: another path beside it, or
/// a frozen field rewritten, is still refused.
#[test]
fn a_closed_task_commit_takes_nothing_else_along() {
    let repo = plan_repo("required");
    install(&repo);
    fixture::start_42(&repo);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "task"]);
    gate_ok(&repo, &["task", "finish"]);
    repo.write("README.md", "# sneaked in\n");
    repo.git(&["add", "-A"]);
    let out = repo.git_may_fail(&["commit", "-q", "-m", "closing"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(said(&out).contains("no_active_task"), "{}", show(&out));
    repo.git(&["reset", "-q", "README.md"]);
    repo.git(&["checkout", "-q", "README.md"]);
    let file = repo.path().join(".gate/tasks/T-42.md");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("\"src/export/**\"", "\"**\"")).unwrap();
    repo.git(&["add", "-A"]);
    let out = repo.git_may_fail(&["commit", "-q", "-m", "closing"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    std::fs::write(&file, text).unwrap();
    repo.git(&["add", "-A"]);
    let out = repo.git_may_fail(&["commit", "-q", "-m", "closing"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

// 2. widening the scope: `gate task scope add`

fn gate_in(repo: &TestRepo, dir: &str, args: &[&str]) -> Output {
    repo.gate()
        .current_dir(repo.path().join(dir))
        .args(args)
        .output()
        .unwrap()
}

/// Regression (issue 13): the advice "widen the task's scope" had no
/// command — editing the scope was `record_rewritten`. `gate task scope
/// add` widens it at every door: pre-commit, `gate check`, pre-push, and
/// CI's `gate check --range` (which shows the addition).
#[test]
fn scope_add_widens_the_scope_at_every_door() {
    let repo = plan_repo("required");
    with_brief(&repo, "required");
    let _origin = with_origin(&repo);
    let base = repo.head();
    install(&repo);
    fixture::start_42(&repo);
    repo.write("src/export/csv.rs", "// csv\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "csv"]);

    repo.write("README.md", "# demo\n\nExports CSV.\n");
    repo.git(&["add", "-A"]);
    let out = repo.git_may_fail(&["commit", "-q", "-m", "readme"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        said(&out).contains("gate task scope add ':/README.md' --because"),
        "{}",
        show(&out)
    );
    // Relative to the current directory, as git pathspecs are.
    let out = gate_in(
        &repo,
        "src",
        &[
            "task",
            "scope",
            "add",
            "../README.md",
            "--because",
            "the README lists the export formats",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_golden("task/scope-add.txt", &transcript(Some(&repo), &out));
    let shown = gate_ok(&repo, &["task", "show"]);
    assert!(
        said(&shown).contains("scope added: README.md (Test Operator,"),
        "{}",
        show(&shown)
    );
    let check = repo
        .gate()
        .args(["check", "--staged", "--json"])
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(0), "{}", show(&check));
    // The reminder's command commits the task file with the work.
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "readme"]);
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    let out = push(&repo);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    // CI sees the addition, and judges with it.
    let ci = check_range(&repo, &base, &["--json"]);
    assert_eq!(ci.status.code(), Some(0), "{}", show(&ci));
    assert_golden(
        "dead_ends/range-scope-widened.json",
        &golden_text(&repo, &ci),
    );
    let doc: serde_json::Value = serde_json::from_slice(&ci.stdout).unwrap();
    let widened: Vec<&serde_json::Value> = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["findings"].as_array().unwrap())
        .filter(|f| f["cause"] == "scope_widened")
        .collect();
    assert_eq!(widened.len(), 1, "{}", show(&ci));
    assert!(
        widened[0]["message"]
            .as_str()
            .unwrap()
            .contains("adds README.md"),
        "{}",
        show(&ci)
    );
    let human = check_range(&repo, &base, &[]);
    assert!(said(&human).contains("scope_widened"), "{}", show(&human));
}

/// An addition written into the task file by hand, not by the command,
/// widens nothing and is said (docs/trust.md#scope-additions).
#[test]
fn a_hand_written_scope_addition_widens_nothing() {
    let repo = plan_repo("required");
    install(&repo);
    fixture::start_42(&repo);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "task"]);
    let file = repo.path().join(".gate/tasks/T-42.md");
    let text = std::fs::read_to_string(&file).unwrap();
    let forged = gate::brief::render_scope(
        "2026-01-01T00:00:00Z",
        "Nobody",
        "README.md",
        "because I say so",
    );
    std::fs::write(
        &file,
        text.replace(
            "## Implementation notes",
            &format!("{forged}## Implementation notes"),
        ),
    )
    .unwrap();
    repo.write("README.md", "# changed\n");
    repo.git(&["add", "-A"]);
    let out = repo.git_may_fail(&["commit", "-q", "-m", "readme"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let text = said(&out);
    assert!(text.contains("path_outside_scope"), "{text}");
    assert!(text.contains("record_rewritten"), "{text}");
    assert!(
        text.contains("neither HEAD's file nor `gate task scope add` in this clone recorded"),
        "{text}"
    );
}

/// Additions are append-only: removing one is `record_rewritten`, at the
/// commit and in CI.
#[test]
fn removing_a_scope_addition_is_record_rewritten() {
    let repo = plan_repo("required");
    with_brief(&repo, "required");
    let base = repo.head();
    install(&repo);
    fixture::start_42(&repo);
    gate_ok(
        &repo,
        &[
            "task",
            "scope",
            "add",
            "README.md",
            "--because",
            "it lists the formats",
        ],
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "task"]);
    let file = repo.path().join(".gate/tasks/T-42.md");
    let text = std::fs::read_to_string(&file).unwrap();
    let start = text.find("### ").unwrap();
    let end = text.find("## Implementation notes").unwrap();
    std::fs::write(&file, format!("{}{}", &text[..start], &text[end..])).unwrap();
    repo.git(&["add", "-A"]);
    let out = repo.git_may_fail(&["commit", "-q", "-m", "narrow"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        said(&out).contains("a scope addition was removed or rewritten"),
        "{}",
        show(&out)
    );
    repo.git(&["commit", "-q", "--no-verify", "-m", "narrow"]);
    let ci = check_range(&repo, &base, &[]);
    assert_eq!(ci.status.code(), Some(1), "{}", show(&ci));
    assert!(said(&ci).contains("record_rewritten"), "{}", show(&ci));
}

/// Under `binding: required` the glob must lie in the task's issue's
/// paths; a refusal names the issue that covers it, or says none does.
#[test]
fn under_required_binding_scope_add_stays_within_the_issue() {
    let repo = plan_repo("required");
    all_required(&repo);
    fixture::start_42(&repo);
    let out = repo
        .gate()
        .args(["task", "scope", "add", "docs/guide.md", "--because", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(said(&out).contains("issue 7 covers it"), "{}", show(&out));
    assert!(
        said(&out).contains("gate start --issue 7"),
        "{}",
        show(&out)
    );
    let out = repo
        .gate()
        .args(["task", "scope", "add", "README.md", "--because", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        said(&out).contains("no open issue of the plan covers it"),
        "{}",
        show(&out)
    );
    let before = std::fs::read(repo.path().join(".gate/tasks/T-42.md")).unwrap();
    assert_eq!(
        std::fs::read(repo.path().join(".gate/tasks/T-42.md")).unwrap(),
        before
    );
    gate_ok(
        &repo,
        &[
            "task",
            "scope",
            "add",
            "src/export/csv/**",
            "--because",
            "the CSV writer gets its own module",
        ],
    );
}

// 3. governance: changing .gate/policy.yaml and .gate/plan.yaml

/// The policy `gate init` writes, with every check `required` (receipts
/// and the binding too).
fn governed() -> String {
    gate::policy::DEFAULT_POLICY_YAML
        .replace("binding: off", "binding: required")
        .replace("advisory", "required")
}

/// Regression (issue 13): changing the policy or the plan under `required`
/// had no path but `--no-verify`. The declared `governance` class is the
/// path: a task exempt as governance, scoped to the two files, commits and
/// pushes the change; a loosening in it is still reported at the commit
/// and refused in CI, where the policy is owned.
#[test]
fn governance_work_changes_the_rules_under_an_all_required_policy() {
    let repo = plan_repo("required");
    repo.write(".gate/policy.yaml", governed());
    repo.commit_all("governed");
    let _origin = with_origin(&repo);
    let base = repo.head();
    install(&repo);
    let out = repo
        .gate()
        .current_dir(repo.path().join("src"))
        .args([
            "start",
            "--exempt",
            "governance",
            "--because",
            "Issue 8: the CSV import",
            "--scope",
            ":/.gate/plan.yaml",
            "--scope",
            ":/.gate/policy.yaml",
            "--brief",
            "-",
        ])
        .write_stdin("Open issue 8 for the CSV import, and date the brief rule.\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let plan = std::fs::read_to_string(repo.path().join(".gate/plan.yaml")).unwrap();
    repo.write(
        ".gate/plan.yaml",
        plan.replace("critiques:", "  - id: \"8\"\n    title: CSV import\n    paths: [\"src/import/**\"]\n    status: open\ncritiques:"),
    );
    // A tightening: briefs are required from a date on.
    repo.write(
        ".gate/policy.yaml",
        governed().replace("# required_since: 2026-11-29", "required_since: 2026-01-01"),
    );
    repo.git(&["add", "-A"]);
    let out = repo.git_may_fail(&["commit", "-q", "-m", "Open issue 8"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let finish = gate_ok(&repo, &["task", "finish", "--json"]);
    let out = run_command(repo.path(), &commit_command(&finish));
    assert!(out.status.success(), "{}", show(&out));
    let out = push(&repo);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let ci = check_range(&repo, &base, &[]);
    assert_eq!(ci.status.code(), Some(0), "{}", show(&ci));

    // A loosening in governance work is reported, never obeyed silently.
    let base = repo.head();
    let out = fixture::start(
        &repo,
        &[
            "--exempt",
            "governance",
            "--because",
            "Relax scope",
            "--scope",
            ":/.gate/policy.yaml",
        ],
        "Make scope advisory.\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let policy = std::fs::read_to_string(repo.path().join(".gate/policy.yaml")).unwrap();
    repo.write(
        ".gate/policy.yaml",
        policy.replace("scope: required", "scope: advisory"),
    );
    repo.git(&["add", "-A"]);
    let out = repo.git_may_fail(&["commit", "-q", "-m", "Relax scope"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(said(&out).contains("policy_loosened"), "{}", show(&out));
    let ci = check_range(&repo, &base, &[]);
    assert_eq!(ci.status.code(), Some(1), "{}", show(&ci));
    assert!(said(&ci).contains("policy_changed"), "{}", show(&ci));
}

/// `gate init` declares the governance class.
#[test]
fn gate_init_declares_the_governance_class() {
    let repo = TestRepo::new();
    gate_ok(&repo, &["init"]);
    let policy = std::fs::read_to_string(repo.path().join(".gate/policy.yaml")).unwrap();
    let parsed = gate::policy::parse(std::path::Path::new(".gate/policy.yaml"), &policy).unwrap();
    assert!(
        parsed.exemptions.iter().any(|e| e.id == "governance"),
        "{policy}"
    );
}

// Agent files under `required` (issue 28)

/// Every check `required` but the receipts, and the `governance` class
/// declared, as `gate init` declares it.
fn all_required_with_governance(repo: &TestRepo) {
    let policy = fixture::policy("required")
        .replace("brief:\n  mode: off", "brief:\n  mode: required")
        .replace("binding: off", "binding: required")
        .replace(
            "exemptions:\n",
            "exemptions:\n  - id: governance\n    description: Changes to gate's rules and files\n",
        );
    repo.write(".gate/policy.yaml", policy);
    repo.commit_all("all required");
}

/// The shell lines a `next:` route prints: from its `gate start` line on.
fn route_script(out: &Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout);
    let at = text
        .find("\ngate start ")
        .unwrap_or_else(|| panic!("no route printed:\n{}", show(out)));
    text[at + 1..].to_string()
}

/// Run `script` with `sh -e` in `repo`, this build's `gate` first on PATH,
/// the tests' isolated git environment.
fn run_script(repo: &TestRepo, script: &str) -> Output {
    let gate = std::path::PathBuf::from(assert_cmd::cargo::cargo_bin!("gate"));
    let path = std::env::join_paths(std::iter::once(gate.parent().unwrap().to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    std::process::Command::new("sh")
        .args(["-e", "-c", script])
        .current_dir(repo.path())
        .envs(crate::support::git_env())
        .env("PATH", path)
        .output()
        .unwrap()
}

/// Regression (issue 28): `gate init --agents` and `gate install --agent
/// claude-code` said "commit AGENTS.md", which under `scope: required` is
/// refused with no task (or outside the active one's scope). They now
/// print the governance route, and it works as printed: committed, the
/// task closed, the active task back, the push and CI through.
#[test]
fn agent_files_under_required_print_the_governance_route_and_it_works() {
    let repo = plan_repo("required");
    all_required_with_governance(&repo);
    let base = repo.head();
    let _origin = with_origin(&repo);
    install(&repo);
    fixture::start_42(&repo);
    repo.git(&["add", ".gate/tasks"]);
    repo.git(&["commit", "-q", "-m", "Start the CSV export"]);

    // The plain advice is what the hooks refuse.
    let init = gate_ok(&repo, &["init", "--agents"]);
    assert!(
        said(&init).contains("under `scope: required` that needs a task whose scope holds it"),
        "{}",
        show(&init)
    );
    let script = route_script(&init);
    assert!(
        script.starts_with(
            "gate start --exempt governance --because \"Commit gate's files for agents\" --scope ':/AGENTS.md' --brief - <<'EOF'\n"
        ) && script.ends_with("gate task switch T-42    # back to the task that was active\n"),
        "{script}"
    );
    for (script, file) in [
        (script, "AGENTS.md"),
        (String::new(), ".claude/settings.json"),
    ] {
        let script = if script.is_empty() {
            let out = gate_ok(&repo, &["install", "--agent", "claude-code"]);
            route_script(&out)
        } else {
            script
        };
        let out = run_script(&repo, &script);
        assert!(out.status.success(), "{script}\n{}", show(&out));
        // `gate task finish` says how to commit the task file: as it says.
        let text = said(&out);
        let commit = text
            .lines()
            .find_map(|l| l.split_once("or alone: ").map(|(_, c)| c.to_string()))
            .unwrap_or_else(|| panic!("{text}"));
        let out = run_command(repo.path(), &commit);
        assert!(out.status.success(), "{commit}\n{}", show(&out));
        assert_eq!(repo.git(&["status", "--porcelain"]), "", "{file}");
        assert!(repo.git_ok(&["cat-file", "-e", &format!("HEAD:{file}")]));
        let active = repo.gate().args(["task", "list"]).output().unwrap();
        assert!(said(&active).contains("* T-42"), "{}", show(&active));
    }
    let out = push(&repo);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = check_range(&repo, &base, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

/// With the active task's scope holding the file, it goes with that
/// task's work; under advisory, it is a commit like any other.
#[test]
fn agent_files_go_with_a_task_that_holds_them_or_plainly() {
    let repo = plan_repo("required");
    let out = fixture::start(
        &repo,
        &[
            "--scope",
            ":/AGENTS.md",
            "--scope",
            ":/src/**",
            "--id",
            "T-task",
        ],
        "Write the agents' loop down.\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let init = gate_ok(&repo, &["init", "--agents"]);
    assert!(
        said(&init).contains(
            "next: commit AGENTS.md with task T-task's work (its scope holds it), so every agent working here reads the loop"
        ),
        "{}",
        show(&init)
    );
    let repo = plan_repo("advisory");
    let init = gate_ok(&repo, &["init", "--agents"]);
    assert!(
        said(&init)
            .ends_with("next: commit AGENTS.md, so every agent working here reads the loop\n"),
        "{}",
        show(&init)
    );
}

/// A policy that declares no `governance` class, with the binding not
/// `required`: a plain task takes the file, and that route works too.
#[test]
fn without_the_governance_class_a_plain_task_takes_agent_files() {
    let repo = plan_repo("required");
    install(&repo);
    let init = gate_ok(&repo, &["init", "--agents"]);
    let script = route_script(&init);
    assert!(
        script.starts_with("gate start --scope ':/AGENTS.md' --brief - <<'EOF'\n"),
        "{script}"
    );
    let out = run_script(&repo, &script);
    assert!(out.status.success(), "{script}\n{}", show(&out));
    let text = said(&out);
    let commit = text
        .lines()
        .find_map(|l| l.split_once("or alone: ").map(|(_, c)| c.to_string()))
        .unwrap_or_else(|| panic!("{text}"));
    let out = run_command(repo.path(), &commit);
    assert!(out.status.success(), "{commit}\n{}", show(&out));
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    assert!(repo.git_ok(&["cat-file", "-e", "HEAD:AGENTS.md"]));
}
