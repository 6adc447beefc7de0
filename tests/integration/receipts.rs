//! Receipts end to end, with real repositories and the real binary: what
//! `gate verify` runs, where, what it streams and records, and how it exits;
//! every state and staleness reason of `gate status`; the latest-attempt
//! rule; receipts per worktree and per task; overlapping runs; acceptance
//! coverage; the receipts check in `gate check` and in a real `git push`.
//!
//! The plan's checks run `check.sh`, a small script steered by files under
//! the ignored `ctl/` directory (so steering a run never touches what a
//! fingerprint covers): `ctl/verdict` (or `ctl/verdict.<check>`) says pass
//! or fail, `ctl/edit` makes the run edit a source, `ctl/output` makes it
//! write a report outside the sources, `ctl/hold` makes it wait for
//! `ctl/release`, `ctl/pause` sleeps; every run appends its check and
//! evidence id to `ctl/ran`.

use std::collections::BTreeSet;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::fixture::{self, PLAN, show};
use crate::golden::{assert_golden, transcript};
use crate::support::{TestRepo, git_env};

const CHECK_SH: &str = r#"echo "check $GATE_CHECK ran in $(pwd)"
echo "to stderr from $GATE_CHECK" >&2
echo "$GATE_CHECK $GATE_EVIDENCE" >> ctl/ran
if [ -f ctl/edit ]; then echo "// edited during the run" >> src/lib.rs; fi
if [ -f ctl/output ]; then echo "report" > report.txt; fi
if [ -f ctl/hold ]; then
    : > "ctl/holding.$GATE_CHECK"
    i=0
    while [ ! -f ctl/release ] && [ "$i" -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
fi
if [ -f ctl/pause ]; then sleep "$(cat ctl/pause)"; fi
verdict=$(cat "ctl/verdict.$GATE_CHECK" 2>/dev/null || cat ctl/verdict)
test "$verdict" = pass
"#;

/// The command of `export-tests`: shell syntax, so only `sh -c` runs it.
const EXPORT_COMMAND: &str = "test -f check.sh && sh check.sh";

/// The fixture plan with `export-tests` running `check.sh` and a second
/// check, `lint`, over `docs`.
fn plan() -> String {
    let plan = PLAN.replace(
        "    command: \"true\"\n    sources: [src, tests]\n",
        &format!(
            "    command: \"{EXPORT_COMMAND}\"\n    sources: [src, tests]\n    purpose: The export end to end\n  - id: lint\n    command: sh check.sh\n    sources: [docs]\n    purpose: The docs are clean\n"
        ),
    );
    assert_ne!(plan, PLAN, "the fixture plan changed: update this test");
    plan
}

/// A policy with receipts at `mode` (and `extra` lines under `receipts`),
/// every other check off.
fn policy(mode: &str, extra: &str) -> String {
    format!(
        "version: 1\nbinding: off\nscope: off\nprovenance:\n  mode: off\n  merges: refuse\nreceipts:\n  mode: {mode}\n{extra}brief:\n  mode: off\n"
    )
}

/// The fixture repository with [`plan`], `check.sh`, the ignored `ctl/`
/// saying `pass`, and task T-42 (issue 42: C1, evidenced by
/// `export-tests`) active; its task file is not committed.
pub(crate) fn receipts_repo(mode: &str) -> TestRepo {
    let repo = receipts_scenery(mode);
    fixture::start_42(&repo);
    repo
}

/// [`receipts_repo`] before any task is started. Its policy trusts every
/// pusher's receipts in a range (`receipts.trust: any-pusher`): the tests
/// that use it are about what a receipt says; those about who signed it
/// are in `signed_receipts`.
pub(crate) fn receipts_scenery(mode: &str) -> TestRepo {
    let repo = fixture::plan_repo("off");
    repo.write(".gate/policy.yaml", policy(mode, "  trust: any-pusher\n"));
    repo.write(".gate/plan.yaml", plan());
    repo.write(".gitignore", "ctl/\nbuild/\n*.log\n");
    repo.write("check.sh", CHECK_SH);
    repo.write("tests/export.rs", "// export tests\n");
    repo.commit_all("receipts scenery");
    repo.write("ctl/verdict", "pass\n");
    repo
}

/// `<common-dir>/gate` of the main worktree.
pub(crate) fn gate_dir(repo: &TestRepo) -> PathBuf {
    repo.path().join(".git/gate")
}

fn run_in(repo: &TestRepo, dir: &Path, args: &[&str]) -> Output {
    repo.gate().current_dir(dir).args(args).output().unwrap()
}

fn verify(repo: &TestRepo, check: &str) -> Output {
    repo.gate().args(["verify", check]).output().unwrap()
}

/// `gate verify` that must exit `code`.
pub(crate) fn verify_exits(repo: &TestRepo, check: &str, code: i32) -> Output {
    let out = verify(repo, check);
    assert_eq!(out.status.code(), Some(code), "{}", show(&out));
    out
}

/// `gate status --json` in `dir` with `args`: the exit code and the document.
fn status_in(repo: &TestRepo, dir: &Path, args: &[&str]) -> (i32, Value) {
    let mut all = vec!["status", "--json"];
    all.extend_from_slice(args);
    let out = run_in(repo, dir, &all);
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not a status document ({e}):\n{}", show(&out)));
    assert_eq!(doc["schema"], "gate.status/1");
    let code = out.status.code().expect("an exit code");
    assert_eq!(doc["exit_code"], code, "{}", show(&out));
    (code, doc)
}

fn status(repo: &TestRepo) -> (i32, Value) {
    status_in(repo, repo.path(), &[])
}

/// The entry of `check` in a status document.
fn entry<'a>(doc: &'a Value, check: &str) -> &'a Value {
    doc["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["check"] == check)
        .unwrap_or_else(|| panic!("no {check} in {doc:#}"))
}

/// `state` or `state why` or `state reason path` of `check` in `doc`.
fn describe(doc: &Value, check: &str) -> String {
    let c = entry(doc, check);
    let mut s = c["state"].as_str().expect("state").to_string();
    for key in ["why", "reason", "path"] {
        if let Some(v) = c[key].as_str() {
            s.push(' ');
            s.push_str(v);
        }
    }
    s
}

/// Assert the state of `export-tests` now (and the matching exit code).
#[track_caller]
fn assert_state(repo: &TestRepo, expected: &str, what: &str) {
    let (code, doc) = status(repo);
    assert_eq!(describe(&doc, "export-tests"), expected, "after {what}");
    let want = match expected.split(' ').next() {
        Some("passed") => 0,
        Some("unknown") => 3,
        _ => 1,
    };
    assert_eq!(code, want, "after {what}: {doc:#}");
}

/// The receipt files of `check`, parsed, oldest first.
pub(crate) fn receipts(repo: &TestRepo, check: &str) -> Vec<Value> {
    receipt_files(repo, check)
        .iter()
        .map(|p| serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap())
        .collect()
}

fn receipt_files(repo: &TestRepo, check: &str) -> Vec<PathBuf> {
    let dir = gate_dir(repo).join("receipts").join(check);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    files.sort();
    files
}

/// What `check.sh` appended to `ctl/ran`: one `check evidence` line a run.
fn ran(repo: &TestRepo) -> Vec<String> {
    std::fs::read_to_string(repo.path().join("ctl/ran"))
        .map(|s| s.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

/// `ev-20261130T010203Z-3f9a0c1b2d4e`.
fn is_evidence(s: &str) -> bool {
    let shape = b"ev-ddddddddTddddddZ-hhhhhhhhhhhh";
    s.len() == shape.len()
        && shape.iter().zip(s.as_bytes()).all(|(p, c)| match p {
            b'd' => c.is_ascii_digit(),
            b'h' => c.is_ascii_digit() || (b'a'..=b'f').contains(c),
            _ => p == c,
        })
}

/// `2026-11-30T01:02:03Z`.
fn is_time(s: &str) -> bool {
    let shape = b"dddd-dd-ddTdd:dd:ddZ";
    s.len() == shape.len()
        && shape.iter().zip(s.as_bytes()).all(|(p, c)| match p {
            b'd' => c.is_ascii_digit(),
            _ => p == c,
        })
}

fn is_sha256(v: &Value) -> bool {
    v.as_str()
        .is_some_and(|s| s.len() == 64 && s.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')))
}

/// The gate binary as a plain process (to run in the background), with the
/// environment [`TestRepo::gate`] gives it.
fn gate_process(repo: &TestRepo, dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("gate"));
    cmd.current_dir(dir)
        .args(args)
        .env_clear()
        .envs(git_env())
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", repo.scratch("home"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

/// Poll until `what` holds (at most 30 s).
#[track_caller]
fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Wait for a background gate (at most 30 s), killing it on a timeout.
fn finish(mut child: Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("a background gate verify did not finish");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Edit `.gate/plan.yaml`: replace `from` (which must be there) by `to`.
fn edit_plan(repo: &TestRepo, from: &str, to: &str) {
    let path = repo.path().join(".gate/plan.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{from:?} not in the plan:\n{text}");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
}

fn restore_plan(repo: &TestRepo) {
    repo.write(".gate/plan.yaml", plan());
}

// ---------------------------------------------------------------------------
// gate verify

#[test]
fn verify_runs_the_plans_command_at_the_root_and_records_every_field() {
    let repo = receipts_repo("required");
    let root = repo.path().display().to_string();
    // From a subdirectory: the command still runs at the repository root.
    let out = run_in(
        &repo,
        &repo.path().join("src/export"),
        &["verify", "export-tests"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let ran_line = format!("check export-tests ran in {root}");
    assert!(stdout.contains(&format!("{ran_line}\n")), "{}", show(&out));
    assert!(
        stderr.contains("to stderr from export-tests\n"),
        "{}",
        show(&out)
    );
    assert!(stdout.contains("export-tests: passed (exit 0)"), "{stdout}");

    let all = receipts(&repo, "export-tests");
    assert_eq!(all.len(), 1, "{all:#?}");
    let r = &all[0];
    let keys: BTreeSet<&str> = r
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    let expected: BTreeSet<&str> = [
        "schema",
        "evidence",
        "check",
        "contract",
        "command",
        "fingerprint_before",
        "fingerprint_after",
        "exit_code",
        "signal",
        "started_at",
        "ended_at",
        "started_ns",
        "head",
        "worktree",
        "task",
        "task_created_at",
        "log",
    ]
    .into();
    assert_eq!(keys, expected);
    assert_eq!(r["schema"], "gate.receipt/1");
    let evidence = r["evidence"].as_str().expect("evidence");
    assert!(is_evidence(evidence), "{evidence}");
    assert!(stdout.contains(&format!("receipt {evidence}")), "{stdout}");
    assert_eq!(r["check"], "export-tests");
    let plan = gate::plan::load(repo.path())
        .expect("the plan loads")
        .expect("a plan")
        .plan;
    let check = plan.acceptance_check("export-tests").expect("declared");
    assert_eq!(r["contract"], check.contract_digest());
    assert_eq!(r["command"], EXPORT_COMMAND);
    let before = &r["fingerprint_before"];
    assert!(is_sha256(&before["digest"]), "{before}");
    // src/lib.rs, src/export/mod.rs, tests/export.rs.
    assert_eq!(before["entries"], 3);
    let bytes = ["src/lib.rs", "src/export/mod.rs", "tests/export.rs"]
        .iter()
        .map(|p| std::fs::metadata(repo.path().join(p)).unwrap().len())
        .sum::<u64>();
    assert_eq!(before["bytes"], bytes);
    assert_eq!(before["unavailable"], Value::Null);
    assert_eq!(before["path"], Value::Null);
    assert_eq!(&r["fingerprint_after"], before);
    assert_eq!(r["exit_code"], 0);
    assert_eq!(r["signal"], Value::Null);
    let (started, ended) = (
        r["started_at"].as_str().unwrap(),
        r["ended_at"].as_str().unwrap(),
    );
    assert!(
        is_time(started) && is_time(ended) && started <= ended,
        "{r}"
    );
    assert!(r["started_ns"].as_u64().is_some_and(|n| n > 0), "{r}");
    assert_eq!(r["head"], repo.head());
    assert_eq!(r["worktree"], root);
    assert_eq!(r["task"], "T-42");
    let log = format!("logs/export-tests/{evidence}.log");
    assert_eq!(r["log"], log);
    // The log holds what the command printed, both streams.
    let logged = std::fs::read_to_string(gate_dir(&repo).join(&log)).unwrap();
    let mut lines: Vec<&str> = logged.lines().collect();
    lines.sort_unstable();
    assert_eq!(lines, [ran_line.as_str(), "to stderr from export-tests"]);
    // The command saw its check and evidence id.
    assert_eq!(ran(&repo), [format!("export-tests {evidence}")]);
    // No marker of a run under way is left.
    let running = gate_dir(&repo).join("running/export-tests");
    assert_eq!(std::fs::read_dir(running).unwrap().count(), 0);
}

#[test]
fn only_the_plans_command_can_run() {
    let repo = receipts_repo("required");
    for args in [
        &["verify", "export-tests", "touch ctl/pwned"][..],
        &["verify", "export-tests", "--command", "touch ctl/pwned"],
        &[
            "verify",
            "export-tests",
            "--",
            "sh",
            "-c",
            "touch ctl/pwned",
        ],
        &["verify", "--", "touch ctl/pwned"],
    ] {
        let out = repo.gate().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}\n{}", show(&out));
        assert!(!repo.path().join("ctl/pwned").exists(), "{args:?}");
    }
    assert!(ran(&repo).is_empty());
    assert!(receipts(&repo, "export-tests").is_empty());
}

#[test]
fn verify_exits_by_the_checks_outcome() {
    let repo = receipts_repo("required");
    repo.write("ctl/verdict", "fail\n");
    let out = verify_exits(&repo, "export-tests", 1);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("export-tests: failed (exit 1)"),
        "{}",
        show(&out)
    );
    let all = receipts(&repo, "export-tests");
    assert_eq!(all.len(), 1);
    assert_eq!(all[0]["exit_code"], 1);
    repo.write("ctl/verdict", "pass\n");
    verify_exits(&repo, "export-tests", 0);
    assert_eq!(receipts(&repo, "export-tests").len(), 2);

    // An unknown check: a usage error naming the declared ones; nothing runs.
    let before = ran(&repo);
    let out = verify_exits(&repo, "exprot-tests", 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("exprot-tests") && stderr.contains("declared: export-tests, lint"),
        "{}",
        show(&out)
    );
    assert_eq!(ran(&repo), before);

    // No plan: nothing to run.
    std::fs::remove_file(repo.path().join(".gate/plan.yaml")).unwrap();
    let out = verify_exits(&repo, "export-tests", 1);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no .gate/plan.yaml"),
        "{}",
        show(&out)
    );
    assert_eq!(ran(&repo), before);
}

/// Regression: `gate verify` copied the command's output until it closed,
/// and a background process the command left running holds it open: verify
/// hung after the command had exited, with no receipt, until that process
/// ended. Verify has returned while that process still runs (no clock
/// read: the process is asked whether it lives).
#[test]
fn a_background_process_left_running_does_not_hold_verify() {
    let repo = receipts_repo("required");
    edit_plan(
        &repo,
        &format!("command: \"{EXPORT_COMMAND}\""),
        "command: \"sleep 60 & echo $! > ctl/background; echo done\"",
    );
    let out = verify_exits(&repo, "export-tests", 0);
    let pid = std::fs::read_to_string(repo.path().join("ctl/background"))
        .expect("the command wrote the background process's id");
    let alive = |signal: &str| {
        Command::new("kill")
            .args([signal, pid.trim()])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let held = !alive("-0");
    // Not ours to leave behind.
    alive("-TERM");
    assert!(
        !held,
        "verify returned only once the process it left running had ended: {}",
        show(&out)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("done"),
        "{}",
        show(&out)
    );
    let all = receipts(&repo, "export-tests");
    assert_eq!(all.len(), 1, "the receipt is recorded");
    assert_eq!(all[0]["exit_code"], 0);
    let log =
        std::fs::read_to_string(gate_dir(&repo).join(all[0]["log"].as_str().unwrap())).unwrap();
    assert!(log.starts_with("done\n"), "{log}");
    assert!(log.contains("is not captured"), "{log}");
    assert_state(&repo, "passed", "a run that left a process behind");
}

#[test]
fn an_unavailable_fingerprint_never_starts_the_command() {
    let repo = receipts_repo("required");
    repo.symlink(b"src/link.rs", b"lib.rs");
    let out = verify_exits(&repo, "export-tests", 3);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("symlink")
            && stderr.contains("src/link.rs")
            && stderr.contains("not started"),
        "{}",
        show(&out)
    );
    assert!(ran(&repo).is_empty(), "the command ran: {:?}", ran(&repo));
    assert!(receipts(&repo, "export-tests").is_empty());
    assert_state(
        &repo,
        "unknown symlink src/link.rs",
        "a symlink in the sources",
    );
}

#[test]
fn sources_changed_during_the_run_make_a_stale_receipt_and_exit_3() {
    let repo = receipts_repo("required");
    repo.write("ctl/edit", "");
    let out = verify_exits(&repo, "export-tests", 3);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("the sources changed during the run"),
        "{}",
        show(&out)
    );
    let all = receipts(&repo, "export-tests");
    assert_eq!(all.len(), 1, "the receipt is recorded");
    assert_eq!(all[0]["exit_code"], 0);
    assert_ne!(
        all[0]["fingerprint_before"]["digest"],
        all[0]["fingerprint_after"]["digest"]
    );
    assert_state(
        &repo,
        "stale sources_changed_during_run",
        "a run that edited a source",
    );
    // On still sources the next run counts.
    std::fs::remove_file(repo.path().join("ctl/edit")).unwrap();
    verify_exits(&repo, "export-tests", 0);
    assert_state(&repo, "passed", "a run on still sources");
}

/// Regression: a git error while taking the fingerprint after the run ended
/// `gate verify` before it recorded the receipt: the run was lost. The
/// receipt is recorded with the after fingerprint unavailable (stale, as a
/// change during the run), and the error is reported: exit 3.
#[test]
fn a_git_error_after_the_run_still_records_the_receipt() {
    let repo = receipts_repo("required");
    let index = repo.path().join(".git/index");
    let saved = std::fs::read(&index).unwrap();
    edit_plan(
        &repo,
        &format!("command: \"{EXPORT_COMMAND}\""),
        "command: \"sh check.sh && echo garbage > .git/index\"",
    );
    let out = verify_exits(&repo, "export-tests", 3);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("after the run"), "{}", show(&out));
    let all = receipts(&repo, "export-tests");
    assert_eq!(all.len(), 1, "the receipt is recorded: {}", show(&out));
    assert_eq!(all[0]["exit_code"], 0);
    assert!(
        is_sha256(&all[0]["fingerprint_before"]["digest"]),
        "{}",
        all[0]
    );
    assert_eq!(all[0]["fingerprint_after"]["digest"], Value::Null);
    assert_eq!(all[0]["fingerprint_after"]["unavailable"], "unreadable");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(all[0]["evidence"].as_str().unwrap()),
        "{}",
        show(&out)
    );
    std::fs::write(&index, saved).unwrap();
    assert_state(
        &repo,
        "stale sources_changed_during_run",
        "a run whose after fingerprint failed",
    );
}

/// Regression: the paths a task touched were taken once, before the run,
/// so a report the command wrote outside `sources` (and outside an ignored
/// path) went unseen until the next status, which then called the receipt
/// stale for "sources changed" after `gate verify` had said passed.
#[test]
fn an_output_written_outside_the_sources_is_a_change_during_the_run() {
    let repo = receipts_repo("required");
    repo.write("ctl/output", "");
    verify_exits(&repo, "export-tests", 3);
    assert!(repo.path().join("report.txt").exists());
    assert_state(
        &repo,
        "stale sources_changed_during_run",
        "a run that wrote report.txt",
    );
}

// ---------------------------------------------------------------------------
// gate status: every state and staleness reason

#[test]
fn missing_passed_and_failed() {
    let repo = receipts_repo("required");
    assert_state(&repo, "missing", "nothing ran");
    verify_exits(&repo, "export-tests", 0);
    assert_state(&repo, "passed", "a passing run");
    repo.write("ctl/verdict", "fail\n");
    verify_exits(&repo, "export-tests", 1);
    assert_state(&repo, "failed", "a failing run");
    let (_, doc) = status(&repo);
    let c = entry(&doc, "export-tests");
    assert_eq!(c["exit_code"], 1);
    assert!(is_evidence(c["evidence"].as_str().unwrap()), "{c}");
    assert_eq!(
        c["log"],
        format!("logs/export-tests/{}.log", c["evidence"].as_str().unwrap())
    );
}

#[test]
fn what_stales_a_receipt_and_what_does_not() {
    let repo = receipts_repo("required");
    verify_exits(&repo, "export-tests", 0);
    assert_state(&repo, "passed", "the run");

    // The sources: content, a new untracked file, the executable bit.
    repo.write("src/lib.rs", "pub fn f() { changed() }\n");
    assert_state(&repo, "stale sources_changed", "editing src/lib.rs");
    repo.git(&["checkout", "-q", "src/lib.rs"]);
    assert_state(&repo, "passed", "restoring src/lib.rs");
    repo.write("tests/new.rs", "// new\n");
    assert_state(&repo, "stale sources_changed", "adding tests/new.rs");
    repo.remove(b"tests/new.rs");
    assert_state(&repo, "passed", "removing tests/new.rs");
    repo.chmod(b"src/lib.rs", true);
    assert_state(&repo, "stale sources_changed", "chmod +x src/lib.rs");
    repo.chmod(b"src/lib.rs", false);
    assert_state(&repo, "passed", "chmod -x src/lib.rs");

    // The check's contract: every field of its declaration.
    for (from, to) in [
        (EXPORT_COMMAND, "sh check.sh"),
        ("sources: [src, tests]", "sources: [src, tests, Cargo.toml]"),
        (
            "purpose: The export end to end",
            "purpose: The export, end to end",
        ),
        (
            "purpose: The export end to end",
            "purpose: The export end to end\n    environment: staging",
        ),
    ] {
        edit_plan(&repo, from, to);
        assert_state(
            &repo,
            "stale contract_changed",
            &format!("editing {from:?}"),
        );
        restore_plan(&repo);
        assert_state(&repo, "passed", "restoring the plan");
    }

    // Other checks, other plan entries, gate's own files: not this contract.
    for (from, to) in [
        ("command: sh check.sh", "command: sh check.sh --strict"),
        ("sources: [docs]", "sources: [docs, src]"),
        (
            "purpose: The docs are clean",
            "purpose: The docs are spotless",
        ),
        (
            "criterion: CSV export works",
            "criterion: CSV export works well",
        ),
        (
            "checks:\n",
            "checks:\n  - id: extra\n    command: \"true\"\n    sources: [src]\n",
        ),
    ] {
        edit_plan(&repo, from, to);
        assert_state(
            &repo,
            "passed",
            &format!("editing {from:?} (not this check)"),
        );
        restore_plan(&repo);
    }
    let task_file = repo.path().join(".gate/tasks/T-42.md");
    let mut text = std::fs::read_to_string(&task_file).unwrap();
    text.push_str("A note on the work.\n");
    std::fs::write(&task_file, text).unwrap();
    let out = repo.gate().args(["task", "show"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("A note on the work."),
        "{}",
        show(&out)
    );
    assert_state(&repo, "passed", "a note in .gate/tasks/T-42.md");

    // Ignored files are outside every fingerprint unless named, in the
    // sources or not.
    repo.write("build/out.txt", "output\n");
    repo.write("src/debug.log", "log\n");
    assert_state(&repo, "passed", "writing ignored files");

    // A tracked file outside the sources becomes touched by being edited:
    // dirty paths are the task's touched paths (docs/receipts.md).
    repo.write("README.md", "# demo, edited\n");
    assert_state(
        &repo,
        "stale sources_changed",
        "editing README.md (now touched)",
    );
    repo.git(&["checkout", "-q", "README.md"]);
    assert_state(&repo, "passed", "restoring README.md (untouched again)");

    // A file the task touched in a commit (baseline..HEAD) stays covered
    // after the tree is clean again. (NOTES.md is in no check's sources: a
    // file in `lint`'s, docs/, would make the task prove lint too.)
    repo.write("NOTES.md", "# Notes on the export\n");
    repo.commit_all("note the export");
    verify_exits(&repo, "export-tests", 0);
    assert_state(&repo, "passed", "a run after the commit");
    repo.write("NOTES.md", "# Notes on the export, again\n");
    assert_state(
        &repo,
        "stale sources_changed",
        "editing NOTES.md, which the task committed",
    );
    repo.commit_all("document it again");
    assert_state(
        &repo,
        "stale sources_changed",
        "committing that edit (the tree is clean, the content moved)",
    );
}

#[test]
fn running_while_a_run_is_live() {
    let repo = receipts_repo("required");
    repo.write("ctl/hold", "");
    let child = gate_process(&repo, repo.path(), &["verify", "export-tests"])
        .spawn()
        .unwrap();
    wait_until("status to say running", || {
        status(&repo).1["checks"][0]["state"] == "running"
    });
    let (code, doc) = status(&repo);
    assert_eq!(code, 1);
    assert_eq!(describe(&doc, "export-tests"), "running");
    // The receipts check says so too.
    let (code, found) = receipts_check(&repo, &[]);
    assert_eq!(
        (code, found),
        (1, vec!["receipt_running export-tests".into()])
    );
    repo.write("ctl/release", "");
    assert_eq!(finish(child).code(), Some(0));
    assert_state(&repo, "passed", "the run finished");
}

#[test]
fn a_killed_run_leaves_a_marker_that_is_not_running() {
    let repo = receipts_repo("required");
    let first = verify_exits(&repo, "export-tests", 0);
    let evidence = receipts(&repo, "export-tests")[0]["evidence"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(String::from_utf8_lossy(&first.stdout).contains(&evidence));
    repo.write("ctl/hold", "");
    // Its own process group, so the kill reaches gate and the check's shell.
    let child = gate_process(&repo, repo.path(), &["verify", "export-tests"])
        .process_group(0)
        .spawn()
        .unwrap();
    let pgid = child.id();
    wait_until("the check to hold", || {
        repo.path().join("ctl/holding.export-tests").exists()
    });
    assert_state(&repo, "running", "a live run");
    let killed = Command::new("kill")
        .args(["-s", "KILL", "--", &format!("-{pgid}")])
        .status()
        .unwrap();
    assert!(killed.success());
    let status_of_kill = finish(child);
    assert_eq!(status_of_kill.code(), None, "killed by a signal");
    let markers = gate_dir(&repo).join("running/export-tests");
    let left: Vec<_> = std::fs::read_dir(&markers)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 1, "the killed run left its marker: {left:?}");
    // The leftover holds no lock: the previous latest state stands.
    let (code, doc) = status(&repo);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(describe(&doc, "export-tests"), "passed");
    assert_eq!(entry(&doc, "export-tests")["evidence"], evidence.as_str());
    assert_eq!(
        std::fs::read_dir(&markers).unwrap().count(),
        0,
        "the leftover is cleaned up"
    );
    assert_eq!(receipts(&repo, "export-tests").len(), 1);
}

#[test]
fn unknown_says_why_the_fingerprint_is_unavailable() {
    let repo = receipts_repo("required");
    verify_exits(&repo, "export-tests", 0);
    // A symlink.
    repo.symlink(b"tests/link.rs", b"export.rs");
    assert_state(&repo, "unknown symlink tests/link.rs", "a symlink in tests");
    repo.remove(b"tests/link.rs");
    assert_state(&repo, "passed", "removing it");
    // A nested repository.
    let inner = repo.path().join("src/inner");
    std::fs::create_dir_all(&inner).unwrap();
    repo.git_in(&inner, &["init", "-q"]);
    assert_state(
        &repo,
        "unknown nested_repository src/inner",
        "a repository inside src",
    );
    repo.remove(b"src/inner");
    assert_state(&repo, "passed", "removing it");
    // The limits, from the policy.
    repo.write(
        ".gate/policy.yaml",
        policy("required", "  max_entries: 2\n"),
    );
    assert_state(&repo, "unknown too_many_entries", "max_entries: 2");
    repo.write(".gate/policy.yaml", policy("required", "  max_bytes: 10\n"));
    assert_state(&repo, "unknown too_many_bytes", "max_bytes: 10");
    verify_exits(&repo, "export-tests", 3);
    repo.write(".gate/policy.yaml", policy("required", ""));
    assert_state(&repo, "passed", "the default limits");
}

#[test]
fn unknown_outranks_missing() {
    let repo = receipts_repo("required");
    repo.symlink(b"src/link.rs", b"lib.rs");
    assert_state(
        &repo,
        "unknown symlink src/link.rs",
        "no receipt, a symlink",
    );
    let (code, found) = receipts_check(&repo, &[]);
    assert_eq!(
        (code, found),
        (3, vec!["fingerprint_unavailable export-tests".into()])
    );
}

// ---------------------------------------------------------------------------
// Which receipt counts

#[test]
fn the_latest_attempt_decides_both_ways() {
    let repo = receipts_repo("required");
    verify_exits(&repo, "export-tests", 0);
    repo.write("ctl/verdict", "fail\n");
    verify_exits(&repo, "export-tests", 1);
    assert_state(&repo, "failed", "pass then fail");
    repo.write("ctl/verdict", "pass\n");
    verify_exits(&repo, "export-tests", 0);
    assert_state(&repo, "passed", "fail then pass");
    repo.write("ctl/verdict", "fail\n");
    verify_exits(&repo, "export-tests", 1);
    assert_state(&repo, "failed", "pass, fail, pass, fail");
    let all = receipts(&repo, "export-tests");
    let codes: Vec<i64> = all
        .iter()
        .map(|r| r["exit_code"].as_i64().unwrap())
        .collect();
    assert_eq!(codes, [0, 1, 0, 1], "receipt files sort by start");
    let (_, doc) = status(&repo);
    assert_eq!(entry(&doc, "export-tests")["evidence"], all[3]["evidence"]);
}

/// Regression: a receipt file that could not be read was set aside and the
/// latest *readable* receipt decided, so a corrupt newest attempt (or one a
/// newer gate wrote, with a field this one does not know) let an older pass
/// stand, and the receipts check — pre-push — passed.
#[test]
fn a_newer_unreadable_receipt_never_lets_an_older_pass_decide() {
    let repo = receipts_repo("required");
    verify_exits(&repo, "export-tests", 0);
    assert_state(&repo, "passed", "a passing run");
    let passed = receipts(&repo, "export-tests").remove(0);
    let ns = passed["started_ns"].as_u64().expect("started_ns");
    let dir = gate_dir(&repo).join("receipts/export-tests");
    let newer = |n: u64, what: &str| dir.join(format!("{n}-ev-20261130T101500Z-{what}.json"));
    let unknown_naming = |file: &Path, what: &str| {
        let (code, doc) = status(&repo);
        let c = entry(&doc, "export-tests");
        assert_eq!(
            (code, c["state"].as_str()),
            (3, Some("unknown")),
            "after {what}: {doc:#}"
        );
        assert_eq!(
            c["path"],
            file.display().to_string(),
            "after {what}: {doc:#}"
        );
        assert_eq!(
            c["unreadable_receipts"].as_array().map(Vec::len),
            Some(1),
            "{doc:#}"
        );
        assert_eq!(
            receipts_check(&repo, &[]),
            (3, vec!["input_unreadable export-tests".to_string()]),
            "after {what}"
        );
    };

    // A torn or corrupt newer attempt.
    let corrupt = newer(ns + 1, "00000000c0de");
    std::fs::write(&corrupt, "{\"schema\": \"gate.receipt/1\", \"evid").unwrap();
    unknown_naming(&corrupt, "a corrupt newer receipt");
    std::fs::remove_file(&corrupt).unwrap();
    assert_state(&repo, "passed", "the corrupt receipt removed");

    // A newer attempt from a newer gate: a field this gate does not know.
    let mut future = passed.clone();
    future["started_ns"] = (ns + 2).into();
    future["exit_code"] = 1.into();
    future["attestation"] = "signed".into();
    let from_future = newer(ns + 2, "0000000f0f0f");
    std::fs::write(&from_future, serde_json::to_vec_pretty(&future).unwrap()).unwrap();
    unknown_naming(&from_future, "a newer receipt with an unknown field");

    // A newer run here decides again; the unreadable file is older now.
    verify_exits(&repo, "export-tests", 0);
    assert_state(&repo, "passed", "a run after the unreadable receipt");
    assert_eq!(receipts_check(&repo, &[]), (0, vec![]));
}

/// A linked worktree of `repo` at `<tmp>/linked`, on branch `linked`,
/// with T-42 active and `ctl/` saying pass.
fn linked_worktree(repo: &TestRepo) -> PathBuf {
    let linked = repo.scratch("linked");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "linked",
        linked.to_str().expect("utf-8"),
    ]);
    let out = run_in(repo, &linked, &["task", "switch", "T-42"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    std::fs::create_dir_all(linked.join("ctl")).unwrap();
    std::fs::write(linked.join("ctl/verdict"), "pass\n").unwrap();
    linked
}

#[test]
fn receipts_count_per_worktree_and_per_task() {
    let repo = receipts_repo("required");
    repo.commit_all("start T-42");
    let linked = linked_worktree(&repo);
    // A passing run in the linked worktree does not count in the main one.
    let out = run_in(&repo, &linked, &["verify", "export-tests"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let (_, doc) = status_in(&repo, &linked, &[]);
    assert_eq!(describe(&doc, "export-tests"), "passed");
    assert_eq!(doc["worktree"], linked.display().to_string());
    assert_state(&repo, "missing", "a run in another worktree");
    // Nor a failing run in the main worktree in the linked one.
    repo.write("ctl/verdict", "fail\n");
    verify_exits(&repo, "export-tests", 1);
    assert_state(&repo, "failed", "a failing run here");
    let (_, doc) = status_in(&repo, &linked, &[]);
    assert_eq!(describe(&doc, "export-tests"), "passed");
    // Both land in the one shared store.
    assert_eq!(receipts(&repo, "export-tests").len(), 2);

    // Another task in the same worktree: its own receipts only.
    let out = fixture::start(
        &repo,
        &["--issue", "42", "--id", "T-43"],
        "More export work.\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_state(&repo, "missing", "a new task");
    repo.write("ctl/verdict", "pass\n");
    verify_exits(&repo, "export-tests", 0);
    assert_state(&repo, "passed", "a run for T-43");
    let (code, doc) = status_in(&repo, repo.path(), &["--task", "T-42"]);
    assert_eq!((code, describe(&doc, "export-tests")), (1, "failed".into()));
    // --task on verify: a run for T-42 while T-43 is active.
    let out = repo
        .gate()
        .args(["verify", "export-tests", "--task", "T-42"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let (code, doc) = status_in(&repo, repo.path(), &["--task", "T-42"]);
    assert_eq!((code, describe(&doc, "export-tests")), (0, "passed".into()));
    let tasks: Vec<String> = receipts(&repo, "export-tests")
        .iter()
        .map(|r| r["task"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(tasks.iter().filter(|t| *t == "T-42").count(), 3);
    assert_eq!(tasks.iter().filter(|t| *t == "T-43").count(), 1);
}

#[test]
fn overlapping_runs_lose_and_tear_nothing() {
    let repo = receipts_repo("required");
    repo.commit_all("start T-42");
    let linked = linked_worktree(&repo);
    for dir in [repo.path(), linked.as_path()] {
        std::fs::write(dir.join("ctl/pause"), "0.3\n").unwrap();
    }
    let runs: [(&Path, &str); 6] = [
        (repo.path(), "export-tests"),
        (repo.path(), "export-tests"),
        (repo.path(), "export-tests"),
        (repo.path(), "lint"),
        (&linked, "export-tests"),
        (&linked, "lint"),
    ];
    let children: Vec<Child> = runs
        .iter()
        .map(|(dir, check)| {
            gate_process(&repo, dir, &["verify", check])
                .spawn()
                .unwrap()
        })
        .collect();
    // Status meanwhile, which also sweeps dead runs' markers: it must never
    // take a live run for a dead one.
    for _ in 0..5 {
        let (code, _) = status(&repo);
        assert!(code == 0 || code == 1, "status exited {code}");
    }
    for child in children {
        assert_eq!(finish(child).code(), Some(0), "every run passed");
    }

    let mut evidence = BTreeSet::new();
    for (check, count) in [("export-tests", 4), ("lint", 2)] {
        let files = receipt_files(&repo, check);
        assert_eq!(files.len(), count, "{check}: {files:?}");
        for file in files {
            let bytes = std::fs::read(&file).unwrap();
            // Whole: it decodes strictly, ends with its newline.
            let r: gate::receipts::Receipt = serde_json::from_slice(&bytes)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            assert!(bytes.ends_with(b"}\n"), "{}", file.display());
            assert_eq!(r.acceptance_id, check);
            assert_eq!(r.exit_code, Some(0));
            assert_eq!(r.fingerprint_before, r.fingerprint_after);
            assert!(gate_dir(&repo).join(&r.log).is_file(), "{}", r.log);
            assert!(evidence.insert(r.evidence.clone()), "{} twice", r.evidence);
        }
    }
    // Every run's evidence is the one its command saw.
    let mut seen: BTreeSet<String> = ran(&repo)
        .iter()
        .map(|l| l.split(' ').nth(1).unwrap().to_string())
        .collect();
    for line in std::fs::read_to_string(linked.join("ctl/ran"))
        .unwrap()
        .lines()
    {
        seen.insert(line.split(' ').nth(1).unwrap().to_string());
    }
    assert_eq!(seen, evidence);
    // Nothing temporary is left: no temp file, no running marker.
    let mut stray = Vec::new();
    let mut stack = vec![gate_dir(&repo)];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else if name.starts_with('.')
                || name.contains(".tmp")
                || dir.ends_with("running/export-tests")
                || dir.ends_with("running/lint")
            {
                stray.push(e.path());
            }
        }
    }
    assert!(stray.is_empty(), "left behind: {stray:?}");
    // Status is the same every time, in each worktree.
    for dir in [repo.path(), linked.as_path()] {
        let first = status_in(&repo, dir, &[]);
        assert_eq!(first.0, 0, "{:#}", first.1);
        assert_eq!(status_in(&repo, dir, &[]), first);
    }
}

// ---------------------------------------------------------------------------
// Acceptance coverage

/// Issue 42 serves C1 (two checks) and C2 (no check); the intent also has
/// C3, which no issue serves.
fn coverage_repo() -> TestRepo {
    let repo = receipts_repo("required");
    edit_plan(
        &repo,
        "        evidence: [export-tests]\n",
        "        evidence: [export-tests, lint]\n      - id: C2\n        criterion: The export is documented\n      - id: C3\n        criterion: Exports are fast\n        evidence: [export-tests]\n",
    );
    edit_plan(&repo, "serves: [C1]", "serves: [C1, C2]");
    repo
}

#[test]
fn coverage_lists_every_served_criterion_with_the_worst_state() {
    let repo = coverage_repo();
    repo.write("ctl/verdict.lint", "fail\n");
    verify_exits(&repo, "export-tests", 0);
    verify_exits(&repo, "lint", 1);
    let (code, doc) = status(&repo);
    assert_eq!(code, 1);
    let checks: Vec<String> = ["export-tests", "lint"]
        .iter()
        .map(|c| format!("{c} {}", describe(&doc, c)))
        .collect();
    assert_eq!(checks, ["export-tests passed", "lint failed"]);
    assert_eq!(doc["checks"].as_array().unwrap().len(), 2);
    let criteria: Vec<String> = doc["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{}#{} {}",
                c["intent"].as_str().unwrap(),
                c["criterion"].as_str().unwrap(),
                c["state"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(criteria, ["I-export#C1 failed", "I-export#C2 unevidenced"]);
    assert_eq!(
        doc["criteria"][0]["evidence"],
        serde_json::json!(["export-tests", "lint"])
    );
    // Fixing lint passes C1; C2 stays unevidenced and blocks nothing.
    std::fs::remove_file(repo.path().join("ctl/verdict.lint")).unwrap();
    verify_exits(&repo, "lint", 0);
    let (code, doc) = status(&repo);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(doc["criteria"][0]["state"], "passed");
    assert_eq!(doc["criteria"][1]["state"], "unevidenced");
}

#[test]
fn a_task_naming_an_intent_covers_all_its_criteria() {
    let repo = coverage_repo();
    let out = fixture::start(
        &repo,
        &["--intent", "I-export", "--id", "T-all"],
        "All of the export.\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let (code, doc) = status(&repo);
    assert_eq!(code, 1);
    let criteria: Vec<String> = doc["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{} {}",
                c["criterion"].as_str().unwrap(),
                c["state"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(criteria, ["C1 missing", "C2 unevidenced", "C3 missing"]);
    let checks: Vec<&str> = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["check"].as_str().unwrap())
        .collect();
    assert_eq!(checks, ["export-tests", "lint"], "each check once");
}

#[test]
fn a_maintenance_task_depends_on_no_check() {
    let repo = receipts_repo("required");
    let out = fixture::start(&repo, &["--issue", "7", "--id", "T-7"], "Fix the typos.\n");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let out = repo.gate().arg("status").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("the task depends on no check"), "{stdout}");
    let (code, doc) = status(&repo);
    assert_eq!(code, 0);
    assert_eq!(doc["checks"], serde_json::json!([]));
    assert_eq!(doc["criteria"], serde_json::json!([]));
    let (code, found) = receipts_check(&repo, &[]);
    assert_eq!((code, found), (0, Vec::<String>::new()));
}

// ---------------------------------------------------------------------------
// The receipts check in `gate check`

/// `gate check --only receipts --json` (plus `args`): the exit code and
/// each finding as `cause check-id`.
fn receipts_check(repo: &TestRepo, args: &[&str]) -> (i32, Vec<String>) {
    let mut all = vec!["check", "--only", "receipts", "--json"];
    all.extend_from_slice(args);
    let out = repo.gate().args(&all).output().unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not a report ({e}):\n{}", show(&out)));
    let check = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "receipts")
        .unwrap_or_else(|| panic!("no receipts check:\n{}", show(&out)))
        .clone();
    let found = check["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{} {}",
                f["cause"].as_str().unwrap(),
                f["check_id"].as_str().unwrap_or("-")
            )
        })
        .collect();
    (out.status.code().expect("an exit code"), found)
}

#[test]
fn the_receipts_check_under_required() {
    let repo = receipts_repo("required");
    let one = |cause: &str| vec![format!("{cause} export-tests")];
    assert_eq!(receipts_check(&repo, &[]), (1, one("receipt_missing")));
    repo.write("ctl/verdict", "fail\n");
    verify_exits(&repo, "export-tests", 1);
    assert_eq!(receipts_check(&repo, &[]), (1, one("receipt_failed")));
    repo.write("ctl/verdict", "pass\n");
    verify_exits(&repo, "export-tests", 0);
    assert_eq!(receipts_check(&repo, &[]), (0, vec![]));
    repo.write("src/export/mod.rs", "// export, changed\n");
    assert_eq!(receipts_check(&repo, &[]), (1, one("receipt_stale")));
    verify_exits(&repo, "export-tests", 0);
    assert_eq!(receipts_check(&repo, &[]), (0, vec![]));
    repo.symlink(b"src/export/link.rs", b"mod.rs");
    assert_eq!(
        receipts_check(&repo, &[]),
        (3, one("fingerprint_unavailable"))
    );
    repo.remove(b"src/export/link.rs");
    // `gate check` without --only runs it as well; --range proves it from
    // the notes (tests/integration/ci_receipts.rs).
    let out = repo.gate().args(["check", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        doc["checks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["check"] == "receipts" && c["outcome"] == "pass"),
        "{doc:#}"
    );
    repo.write("src/export/mod.rs", "// export, changed again\n");
    let out = repo.gate().args(["check", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    repo.commit_all("export work");
    let out = repo
        .gate()
        .args(["check", "--range", "HEAD~1..HEAD", "--json"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let receipts = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "receipts")
        .unwrap_or_else(|| panic!("{doc:#}"));
    assert_eq!(
        receipts["findings"][0]["cause"], "receipt_missing",
        "the commit carries no note: {doc:#}"
    );
}

#[test]
fn the_receipts_check_under_advisory_reports_and_never_blocks() {
    let repo = receipts_repo("advisory");
    let (code, found) = receipts_check(&repo, &[]);
    assert_eq!(
        (code, found),
        (0, vec!["receipt_missing export-tests".to_string()])
    );
    repo.write("ctl/verdict", "fail\n");
    verify_exits(&repo, "export-tests", 1);
    assert_eq!(
        receipts_check(&repo, &[]),
        (0, vec!["receipt_failed export-tests".to_string()])
    );
    repo.symlink(b"src/link.rs", b"lib.rs");
    assert_eq!(
        receipts_check(&repo, &[]),
        (0, vec!["fingerprint_unavailable export-tests".to_string()])
    );
}

// ---------------------------------------------------------------------------
// A real `git push` through the installed pre-push hook

fn push(repo: &TestRepo, args: &[&str]) -> Output {
    let mut all = vec!["push"];
    all.extend_from_slice(args);
    repo.git_may_fail(&all)
}

/// What a command printed, stdout then stderr.
pub(crate) fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn remote_main(remote: &TestRepo) -> String {
    remote.rev("refs/heads/main")
}

/// Commit everything, without the pre-commit hook.
fn commit(repo: &TestRepo, message: &str) -> String {
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", message]);
    repo.head()
}

#[test]
fn a_push_needs_fresh_receipts_for_exactly_what_it_sends() {
    let repo = receipts_repo("required");
    let remote = TestRepo::bare();
    repo.git(&[
        "remote",
        "add",
        "origin",
        remote.path().to_str().expect("utf-8"),
    ]);
    assert!(push(&repo, &["-q", "origin", "main"]).status.success());
    let out = repo.gate().arg("install").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));

    // No receipt: refused, the remote unchanged.
    let before = remote_main(&remote);
    repo.write("src/export/mod.rs", "// export v1\n");
    commit(&repo, "export v1");
    let out = push(&repo, &["origin", "main"]);
    assert!(!out.status.success(), "{}", show(&out));
    assert!(said(&out).contains("receipt_missing"), "{}", show(&out));
    assert_eq!(remote_main(&remote), before);

    // After `gate verify`: accepted.
    verify_exits(&repo, "export-tests", 0);
    let out = push(&repo, &["origin", "main"]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(remote_main(&remote), repo.head());

    // A committed source change since the run: stale, refused.
    let before = remote_main(&remote);
    repo.write("src/export/mod.rs", "// export v2\n");
    commit(&repo, "export v2");
    let out = push(&repo, &["origin", "main"]);
    assert!(!out.status.success(), "{}", show(&out));
    assert!(said(&out).contains("receipt_stale"), "{}", show(&out));
    assert_eq!(remote_main(&remote), before);

    // Fresh receipts made on uncommitted changes vouch for them, not for
    // the commits pushed: refused.
    repo.write("src/export/mod.rs", "// export v3, not committed\n");
    verify_exits(&repo, "export-tests", 0);
    assert_state(&repo, "passed", "a run on a dirty tree");
    let out = push(&repo, &["origin", "main"]);
    assert!(!out.status.success(), "{}", show(&out));
    let text = said(&out);
    assert!(
        text.contains("receipt_stale")
            && text.contains("uncommitted changes")
            && text.contains("src/export/mod.rs"),
        "{text}"
    );
    assert_eq!(remote_main(&remote), before);

    // Committed and verified again: accepted.
    commit(&repo, "export v3");
    verify_exits(&repo, "export-tests", 0);
    let out = push(&repo, &["origin", "main"]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(remote_main(&remote), repo.head());

    // A commit other than HEAD: the receipts were not made on it.
    let before = remote_main(&remote);
    repo.write("src/export/mod.rs", "// export v4\n");
    let older = commit(&repo, "export v4");
    repo.write("src/export/mod.rs", "// export v5\n");
    commit(&repo, "export v5");
    verify_exits(&repo, "export-tests", 0);
    let out = push(&repo, &["origin", &format!("{older}:refs/heads/main")]);
    assert!(!out.status.success(), "{}", show(&out));
    let text = said(&out);
    assert!(
        text.contains("receipt_stale") && text.contains(&older[..12]) && text.contains("HEAD"),
        "{text}"
    );
    assert_eq!(remote_main(&remote), before);
    let out = push(&repo, &["origin", "main"]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(remote_main(&remote), repo.head());
}

// ---------------------------------------------------------------------------
// Golden transcripts

#[test]
fn status_and_verify_transcripts() {
    let repo = coverage_repo();
    let out = verify_exits(&repo, "export-tests", 0);
    assert_golden("receipts/verify_pass.txt", &transcript(Some(&repo), &out));
    repo.write("ctl/verdict.lint", "fail\n");
    let out = verify_exits(&repo, "lint", 1);
    assert_golden("receipts/verify_fail.txt", &transcript(Some(&repo), &out));
    let human = repo.gate().arg("status").output().unwrap();
    assert_golden("receipts/status.txt", &transcript(Some(&repo), &human));
    let json = repo.gate().args(["status", "--json"]).output().unwrap();
    assert_golden("receipts/status_json.txt", &transcript(Some(&repo), &json));
    // Unknown and stale, with their reasons: a new file (touched, so
    // covered by every check) takes export-tests over the entry limit and
    // changes lint's sources.
    repo.write(
        ".gate/policy.yaml",
        policy("required", "  max_entries: 3\n"),
    );
    repo.write("tests/new.rs", "// new\n");
    let human = repo.gate().arg("status").output().unwrap();
    assert_golden(
        "receipts/status_stale_unknown.txt",
        &transcript(Some(&repo), &human),
    );
    let json = repo.gate().args(["status", "--json"]).output().unwrap();
    assert_golden(
        "receipts/status_stale_unknown_json.txt",
        &transcript(Some(&repo), &json),
    );
}

/// Move a receipt file so that its order (`started_ns`, in the field and the
/// name) is `ns`, with `edit` applied to its fields: a receipt as it would
/// have been recorded under another clock.
fn rewrite_receipt(repo: &TestRepo, check: &str, ns: u64, edit: impl Fn(&mut Value)) -> PathBuf {
    let files = receipt_files(repo, check);
    let old = files.last().expect("a receipt");
    let mut r: Value = serde_json::from_slice(&std::fs::read(old).unwrap()).unwrap();
    r["started_ns"] = ns.into();
    edit(&mut r);
    let name = format!("{ns}-{}.json", r["evidence"].as_str().unwrap());
    let new = old.with_file_name(name);
    std::fs::remove_file(old).unwrap();
    std::fs::write(&new, serde_json::to_vec_pretty(&r).unwrap()).unwrap();
    new
}

/// Regression: attempts were ordered by the wall clock, so a pass recorded
/// while the clock ran ahead outweighed every failure after the clock was
/// stepped back. The order is a counter taken under a lock now.
#[test]
fn with_the_clock_stepped_back_an_older_pass_never_outweighs_a_newer_failure() {
    let repo = receipts_repo("required");
    verify_exits(&repo, "export-tests", 0);
    // The pass was recorded a day ahead of the clock as it reads now.
    let ns = receipts(&repo, "export-tests")[0]["started_ns"]
        .as_u64()
        .unwrap();
    let ahead = ns + 86_400 * 1_000_000_000;
    rewrite_receipt(&repo, "export-tests", ahead, |_| {});
    assert_state(&repo, "passed", "the pass");
    repo.write("ctl/verdict", "fail\n");
    verify_exits(&repo, "export-tests", 1);
    assert_state(&repo, "failed", "a failure after the clock went back");
    let all = receipts(&repo, "export-tests");
    assert_eq!(all.len(), 2);
    assert!(all[1]["started_ns"].as_u64().unwrap() > ahead, "{all:#?}");
    assert_eq!(all[1]["exit_code"], 1);
    assert_eq!(receipts_check(&repo, &[]).0, 1);
}

/// A receipt whose end precedes its start is not a record of a run: it is
/// unreadable (unknown), never a pass.
#[test]
fn a_receipt_that_ends_before_it_starts_is_unreadable() {
    let repo = receipts_repo("required");
    verify_exits(&repo, "export-tests", 0);
    let ns = receipts(&repo, "export-tests")[0]["started_ns"]
        .as_u64()
        .unwrap();
    let file = rewrite_receipt(&repo, "export-tests", ns, |r| {
        r["ended_at"] = "2001-01-01T00:00:00Z".into();
    });
    let (code, doc) = status(&repo);
    assert_eq!(code, 3, "{doc:#}");
    assert_eq!(
        describe(&doc, "export-tests").split(' ').next(),
        Some("unknown")
    );
    assert_eq!(
        entry(&doc, "export-tests")["path"],
        file.display().to_string()
    );
    assert_eq!(
        receipts_check(&repo, &[]),
        (3, vec!["input_unreadable export-tests".to_string()])
    );
}

/// Regression: a task naming an issue whose plan was missing, unreadable or
/// a dangling symlink "depended on no check", and the receipts check
/// passed. Which checks it depends on cannot be told: unknown.
#[test]
fn a_missing_or_unreadable_plan_is_unknown_for_a_task_that_names_an_issue() {
    let repo = receipts_repo("required");
    repo.remove(b".gate/plan.yaml");
    assert_eq!(
        receipts_check(&repo, &[]),
        (3, vec!["input_unreadable -".to_string()]),
        "no plan"
    );
    repo.symlink(b".gate/plan.yaml", b"gone.yaml");
    assert_eq!(
        receipts_check(&repo, &[]),
        (3, vec!["input_unreadable -".to_string()]),
        "a dangling symlink"
    );
    let out = repo.gate().arg("status").output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
}

/// Regression: a task whose issue, intent or served criterion no longer
/// resolved in the plan was read as depending on no check, and passed.
#[test]
fn a_task_whose_plan_entry_no_longer_resolves_is_unknown() {
    let repo = receipts_repo("required");
    verify_exits(&repo, "export-tests", 0);
    assert_eq!(receipts_check(&repo, &[]), (0, vec![]));
    for (from, to, what) in [
        ("  - id: \"42\"\n", "  - id: \"43\"\n", "the issue renamed"),
        (
            "    serves: [C1]\n",
            "    serves: [C9]\n",
            "an unknown criterion",
        ),
        (
            "      - id: C1\n",
            "      - id: C2\n",
            "the criterion renamed",
        ),
    ] {
        edit_plan(&repo, from, to);
        assert_eq!(
            receipts_check(&repo, &[]),
            (3, vec!["input_unreadable -".to_string()]),
            "after {what}"
        );
        let out = repo.gate().arg("status").output().unwrap();
        assert_eq!(out.status.code(), Some(3), "after {what}: {}", show(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("cannot be told"),
            "after {what}: {}",
            show(&out)
        );
        restore_plan(&repo);
    }
    assert_eq!(receipts_check(&repo, &[]), (0, vec![]));
}

/// Return once the clock's whole second has changed since the call: what
/// was stamped before then has an earlier second than what is stamped after.
fn next_second() {
    let second = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("the clock is past the epoch")
            .as_secs()
    };
    let now = second();
    while second() == now {
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Regression: a receipt recorded for an earlier task with the same id (its
/// file deleted, a new task started under that id) counted for the new one.
#[test]
fn a_receipt_of_an_earlier_task_with_the_same_id_never_counts() {
    let repo = receipts_repo("required");
    verify_exits(&repo, "export-tests", 0);
    assert_state(&repo, "passed", "a pass for T-42");
    // A task's creation time has whole seconds: the new T-42 is created in
    // a later second than the first.
    next_second();
    // `gate start` refuses an id this clone keeps state for (decision
    // 0024): a task under the same id comes from a clone that could not
    // see this one — here, once the file and the start records are gone.
    repo.remove(b".gate/tasks/T-42.md");
    for state in ["started/T-42", "recorded/T-42.md"] {
        std::fs::remove_file(gate_dir(&repo).join(state)).unwrap();
    }
    fixture::start_42(&repo);
    assert_state(&repo, "missing", "a new task under the same id");
    assert_eq!(
        receipts_check(&repo, &[]),
        (1, vec!["receipt_missing export-tests".to_string()])
    );
    verify_exits(&repo, "export-tests", 0);
    assert_state(&repo, "passed", "a pass for the new T-42");
}

/// Regression: a source marked skip-worktree (a sparse checkout) or
/// assume-unchanged can hold what the commit does not, and git does not
/// say so: verify, status and the receipts check passed on the work tree's
/// copy while the committed tree failed the check.
#[test]
fn sources_git_does_not_look_at_make_the_fingerprint_unavailable() {
    let repo = receipts_repo("required");
    repo.commit_all("start T-42");
    verify_exits(&repo, "export-tests", 0);
    assert_state(&repo, "passed", "a pass");
    for (flag, reason) in [
        ("skip-worktree", "skip_worktree"),
        ("assume-unchanged", "assume_unchanged"),
    ] {
        repo.git(&["update-index", &format!("--{flag}"), "src/lib.rs"]);
        assert_state(
            &repo,
            &format!("unknown {reason} src/lib.rs"),
            &format!("src/lib.rs marked {flag}"),
        );
        assert_eq!(
            receipts_check(&repo, &[]),
            (3, vec!["fingerprint_unavailable export-tests".to_string()]),
            "{flag}"
        );
        verify_exits(&repo, "export-tests", 3);
        repo.git(&["update-index", &format!("--no-{flag}"), "src/lib.rs"]);
        assert_state(&repo, "passed", &format!("{flag} cleared"));
    }
    // A sparse checkout leaves src/ out of the work tree.
    repo.git(&["sparse-checkout", "set", ".gate", "docs", "tests"]);
    let (code, doc) = status(&repo);
    assert_eq!(code, 3, "{doc:#}");
    assert!(
        describe(&doc, "export-tests").starts_with("unknown skip_worktree src/"),
        "{doc:#}"
    );
    repo.git(&["sparse-checkout", "disable"]);
    assert_state(&repo, "passed", "the sparse checkout disabled");
}

/// Regression: a running directory that could not be listed read as "no
/// run under way", so the receipts before a run decided while it ran.
#[test]
fn a_running_directory_that_cannot_be_listed_is_unknown() {
    let repo = receipts_repo("required");
    verify_exits(&repo, "export-tests", 0);
    let running = gate_dir(&repo).join("running/export-tests");
    let _ = std::fs::remove_dir_all(&running);
    std::fs::write(&running, "not a directory\n").unwrap();
    let (code, doc) = status(&repo);
    assert_eq!(code, 3, "{doc:#}");
    assert!(
        describe(&doc, "export-tests").starts_with("unknown"),
        "{doc:#}"
    );
    assert_eq!(
        receipts_check(&repo, &[]),
        (3, vec!["input_unreadable export-tests".to_string()])
    );
}

#[test]
fn a_source_swapped_and_restored_during_the_run_never_passes() {
    let repo = receipts_repo("required");
    // The check replaces a source with other bytes while it runs, and puts
    // the same bytes back before it ends: the fingerprints before and after
    // are equal, the file's stat identity is not.
    repo.write(
        "check.sh",
        "cp src/lib.rs ctl/saved\necho 'evil' > src/lib.rs\nsleep 0.05\ncp ctl/saved src/lib.rs\n",
    );
    let out = verify_exits(&repo, "export-tests", 3);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("the sources changed during the run"),
        "{said}"
    );
    assert_state(
        &repo,
        "stale sources_changed_during_run",
        "a swap and restore during the run",
    );
    // A run that leaves the sources alone passes again.
    repo.write("check.sh", "true\n");
    verify_exits(&repo, "export-tests", 0);
    assert_state(&repo, "passed", "a run that touched nothing");
}
