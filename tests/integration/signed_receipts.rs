//! Signed receipts (docs/receipts.md, "Signed receipts"): in a range a
//! receipt counts only when it is signed by a key the trusted revision's
//! `receipts.signers` lists, or when the trusted policy says
//! `receipts.trust: any-pusher`. Each test makes its own keys with
//! `ssh-keygen` (and `gpg`), pushes to a bare remote, and judges in a fresh
//! clone that fetched the notes, as CI does.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::ci_receipts::{causes, check_range, receipts};
use crate::fixture::{self, show};
use crate::receipts::{receipts_scenery, verify_exits};
use crate::support::TestRepo;

/// A policy with receipts required, every other check off, and `extra`
/// lines under `receipts`.
fn policy(extra: &str) -> String {
    format!(
        "version: 1\nbinding: off\nscope: off\nprovenance:\n  mode: off\n  merges: refuse\nreceipts:\n  mode: required\n{extra}brief:\n  mode: off\n"
    )
}

const SIGNED: &str = "  trust: signed\n  signers: .gate/allowed_signers\n";

/// An ed25519 key pair made by `ssh-keygen` beside `repo`: the private
/// key's path and the public key's line.
fn keypair(repo: &TestRepo, name: &str) -> (PathBuf, String) {
    let path = repo.scratch(&format!("key-{name}"));
    let out = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", name, "-f"])
        .arg(&path)
        .output()
        .expect("ssh-keygen runs (apt-get install openssh-client)");
    assert!(out.status.success(), "{}", show(&out));
    let public = std::fs::read_to_string(path.with_extension("pub"))
        .or_else(|_| std::fs::read_to_string(format!("{}.pub", path.display())))
        .unwrap();
    (path, public.trim().to_string())
}

/// Sign with `key` (a private key file) in `repo`, as git signs commits.
fn sign_with(repo: &TestRepo, key: &Path) {
    repo.git(&["config", "gpg.format", "ssh"]);
    repo.git(&["config", "user.signingKey", key.to_str().unwrap()]);
}

/// A developer's clone whose base commit lists `listed` (email, public key)
/// as signers under `receipts_extra`, task T-42 started and its work
/// committed on top; a bare remote.
struct Setup {
    dev: TestRepo,
    remote: TestRepo,
    base: String,
}

fn setup(receipts_extra: &str, listed: &[(&str, &str)]) -> Setup {
    let dev = receipts_scenery("required");
    dev.write(".gate/policy.yaml", policy(receipts_extra));
    let lines: String = listed
        .iter()
        .map(|(who, key)| format!("{who} {key}\n"))
        .collect();
    dev.write(".gate/allowed_signers", lines);
    dev.commit_all("receipts: signed");
    fixture::start_42(&dev);
    let base = dev.head();
    dev.write("src/export/mod.rs", "// export, CSV\n");
    dev.commit_all("export: CSV\n\nTask: T-42");
    let remote = TestRepo::bare();
    dev.git(&["remote", "add", "origin", remote.path().to_str().unwrap()]);
    Setup { dev, remote, base }
}

impl Setup {
    /// Push main and the notes, bypassing hooks; then judge the range in a
    /// fresh clone that fetched both, as CI does.
    fn push_and_check(&self) -> (i32, Value) {
        self.dev
            .git(&["push", "-q", "--no-verify", "-f", "origin", "main"]);
        let _ = self.dev.git_may_fail(&[
            "push",
            "-q",
            "--no-verify",
            "-f",
            "origin",
            "refs/notes/gate",
        ]);
        let ci = TestRepo::new();
        ci.git(&[
            "remote",
            "add",
            "origin",
            self.remote.path().to_str().unwrap(),
        ]);
        ci.git(&[
            "fetch",
            "-q",
            "origin",
            "+refs/heads/*:refs/remotes/origin/*",
        ]);
        let _ = ci.git_may_fail(&["fetch", "-q", "origin", "+refs/notes/gate:refs/notes/gate"]);
        ci.git(&["checkout", "-q", "-B", "main", "origin/main"]);
        let range = format!("{}..{}", self.base, ci.head());
        check_range(&ci, &range, &[])
    }

    /// The note on HEAD, as JSON.
    fn note(&self) -> Value {
        let text = self.dev.git(&["notes", "--ref", "gate", "show", "HEAD"]);
        serde_json::from_str(&text).unwrap()
    }

    /// Replace the note on HEAD with `note`.
    fn put_note(&self, note: &Value) {
        let file = self.dev.scratch("note.json");
        std::fs::write(&file, serde_json::to_vec_pretty(note).unwrap()).unwrap();
        self.dev.git(&[
            "notes",
            "--ref",
            "gate",
            "add",
            "-f",
            "-F",
            file.to_str().unwrap(),
            "HEAD",
        ]);
    }
}

fn summary(doc: &Value) -> String {
    receipts(doc)["summary"].as_str().unwrap().to_string()
}

/// A range's verdict that must be one `receipt_unverified` refusal: its
/// report.
#[track_caller]
fn unverified((code, doc): (i32, Value)) -> Value {
    assert_eq!(
        (code, causes(&doc)),
        (1, vec!["receipt_unverified".to_string()]),
        "{doc:#}"
    );
    doc
}

/// The message of the receipts check's only finding.
fn only_message(doc: &Value) -> String {
    let findings = receipts(doc)["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{doc:#}");
    findings[0]["message"].as_str().unwrap().to_string()
}

#[test]
fn a_receipt_signed_by_a_listed_key_proves_its_check_in_ci() {
    let probe = TestRepo::new();
    let (key, public) = keypair(&probe, "ada");
    let s = setup(SIGNED, &[("ada@example.org", &public)]);
    sign_with(&s.dev, &key);
    let out = verify_exits(&s.dev, "export-tests", 0);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("signed with ssh key"), "{}", show(&out));
    let entry = &s.note()["checks"][0];
    assert!(
        entry["signature"]
            .as_str()
            .unwrap()
            .starts_with("-----BEGIN SSH SIGNATURE-----"),
        "{entry:#}"
    );
    let (code, doc) = s.push_and_check();
    assert_eq!((code, causes(&doc)), (0, vec![]), "{doc:#}");
    assert!(
        summary(&doc)
            .contains("export-tests by a receipt signed by ada@example.org (ED25519 SHA256:"),
        "{doc:#}"
    );
}

#[test]
fn an_unsigned_receipt_is_unverified_under_the_default_trust() {
    // No signing key: the receipt is made and attached unsigned, and says so.
    let s = setup("  signers: .gate/allowed_signers\n", &[]);
    let out = verify_exits(&s.dev, "export-tests", 0);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("unsigned: no user.signingKey is configured"),
        "{}",
        show(&out)
    );
    let doc = unverified(s.push_and_check());
    assert!(only_message(&doc).contains("it is not signed"), "{doc:#}");
}

#[test]
fn a_policy_that_names_no_signers_believes_no_receipt() {
    let probe = TestRepo::new();
    let (key, _) = keypair(&probe, "ada");
    let s = setup("", &[]);
    sign_with(&s.dev, &key);
    verify_exits(&s.dev, "export-tests", 0);
    let doc = unverified(s.push_and_check());
    assert!(
        only_message(&doc).contains("names no `receipts.signers`"),
        "{doc:#}"
    );
}

#[test]
fn an_entry_written_from_git_objects_alone_is_unverified() {
    // The forger computes everything a note needs from the objects and the
    // plan, and never runs the check: no signature can be made for it.
    let probe = TestRepo::new();
    let (key, public) = keypair(&probe, "ada");
    let s = setup(SIGNED, &[("ada@example.org", &public)]);
    sign_with(&s.dev, &key);
    verify_exits(&s.dev, "export-tests", 0);
    let mut note = s.note();
    note["checks"][0]
        .as_object_mut()
        .unwrap()
        .remove("signature");
    note["checks"][0]["evidence"] = "ev-forged".into();
    s.put_note(&note);
    unverified(s.push_and_check());
}

#[test]
fn a_forged_pass_over_a_signed_failure_is_unverified() {
    let probe = TestRepo::new();
    let (key, public) = keypair(&probe, "ada");
    let s = setup(SIGNED, &[("ada@example.org", &public)]);
    sign_with(&s.dev, &key);
    s.dev.write("ctl/verdict", "fail\n");
    verify_exits(&s.dev, "export-tests", 1);
    // Flip the outcome, keep the signature.
    let mut note = s.note();
    note["checks"][0]["passed"] = true.into();
    note["checks"][0]["exit_code"] = 0.into();
    s.put_note(&note);
    let doc = unverified(s.push_and_check());
    assert!(only_message(&doc).contains("does not verify"), "{doc:#}");
    // Raising its order over a newer attempt breaks it too.
    let mut note = s.note();
    note["checks"][0]["passed"] = false.into();
    note["checks"][0]["exit_code"] = 1.into();
    note["checks"][0]["started_ns"] = (u64::MAX).into();
    s.put_note(&note);
    unverified(s.push_and_check());
}

#[test]
fn an_edited_local_receipt_is_refused_at_the_push_and_in_ci() {
    let probe = TestRepo::new();
    let (key, public) = keypair(&probe, "ada");
    let s = setup(SIGNED, &[("ada@example.org", &public)]);
    sign_with(&s.dev, &key);
    s.dev.write("ctl/verdict", "fail\n");
    verify_exits(&s.dev, "export-tests", 1);
    // The failing run's note goes; the local receipt is edited to pass.
    s.dev.git(&["update-ref", "-d", "refs/notes/gate"]);
    let dir = s.dev.path().join(".git/gate/receipts/export-tests");
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let text = std::fs::read_to_string(&file).unwrap();
    let edited = text.replace("\"exit_code\": 1", "\"exit_code\": 0");
    assert_ne!(text, edited, "{text}");
    std::fs::write(&file, edited.as_bytes()).unwrap();
    // The local doors trust local files, but gate's pre-push asks whether
    // the receipt will count where the push is judged: its signature no
    // longer covers what it says, so the push is refused.
    let out = s.dev.gate().args(["install"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let pushed = s.dev.git_may_fail(&["push", "-q", "origin", "main"]);
    assert!(!pushed.status.success(), "{}", show(&pushed));
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&pushed.stdout),
        String::from_utf8_lossy(&pushed.stderr)
    );
    assert!(said.contains("does not verify"), "{said}");
    // Carried to CI by hand, as a note, it is refused there too.
    let receipt: Value = serde_json::from_str(&edited).unwrap();
    let entry = serde_json::json!({
        "check": receipt["check"],
        "evidence": receipt["evidence"],
        "contract": receipt["contract"],
        "fingerprint": receipt["fingerprint_after"]["digest"],
        "exit_code": 0,
        "signal": null,
        "passed": true,
        "started_at": receipt["started_at"],
        "ended_at": receipt["ended_at"],
        "started_ns": receipt["started_ns"],
        "task": receipt["task"],
        "gate_version": "0.1.0",
        "log_digest": null,
        "signature": receipt["signature"],
    });
    s.put_note(&serde_json::json!({"schema": "gate.note/1", "checks": [entry]}));
    unverified(s.push_and_check());
}

#[test]
fn a_valid_signature_by_an_unlisted_key_is_unverified() {
    let probe = TestRepo::new();
    let (_, ada) = keypair(&probe, "ada");
    let (mallory, _) = keypair(&probe, "mallory");
    let s = setup(SIGNED, &[("ada@example.org", &ada)]);
    sign_with(&s.dev, &mallory);
    verify_exits(&s.dev, "export-tests", 0);
    let doc = unverified(s.push_and_check());
    assert!(
        only_message(&doc).contains("signed by a key .gate/allowed_signers at the range's base"),
        "{doc:#}"
    );
}

#[test]
fn a_key_the_range_adds_to_the_signers_does_not_count_until_it_is_on_the_base() {
    let probe = TestRepo::new();
    let (_, ada) = keypair(&probe, "ada");
    let (mallory, mallory_public) = keypair(&probe, "mallory");
    let s = setup(SIGNED, &[("ada@example.org", &ada)]);
    // The range lists mallory itself, and mallory signs.
    s.dev.write(
        ".gate/allowed_signers",
        format!("ada@example.org {ada}\nmallory@example.org {mallory_public}\n"),
    );
    s.dev.commit_all("signers: add mallory\n\nTask: T-42");
    sign_with(&s.dev, &mallory);
    verify_exits(&s.dev, "export-tests", 0);
    unverified(s.push_and_check());
}

#[test]
fn a_key_removed_at_the_base_no_longer_counts() {
    let probe = TestRepo::new();
    let (key, ada) = keypair(&probe, "ada");
    let (_, bob) = keypair(&probe, "bob");
    // The base lists bob only: ada was removed there. The range itself
    // still lists ada, which changes nothing.
    let s = setup(SIGNED, &[("bob@example.org", &bob)]);
    s.dev.write(
        ".gate/allowed_signers",
        format!("ada@example.org {ada}\nbob@example.org {bob}\n"),
    );
    s.dev.commit_all("signers: ada back\n\nTask: T-42");
    sign_with(&s.dev, &key);
    verify_exits(&s.dev, "export-tests", 0);
    unverified(s.push_and_check());
    // Judged by a revision that lists ada, the same receipt counts.
    let (code, doc) = check_range(
        &s.dev,
        &format!("{}..HEAD", s.base),
        &["--policy-from", "HEAD"],
    );
    assert_eq!((code, causes(&doc)), (0, vec![]), "{doc:#}");
}

#[test]
fn any_pusher_trust_counts_unsigned_receipts_and_says_so() {
    let s = setup("  trust: any-pusher\n", &[]);
    verify_exits(&s.dev, "export-tests", 0);
    let (code, doc) = s.push_and_check();
    assert_eq!((code, causes(&doc)), (0, vec![]), "{doc:#}");
    assert!(
        summary(&doc).contains("receipts.trust is any-pusher: unsigned receipts count, so whoever can push refs/notes/gate is believed"),
        "{doc:#}"
    );
}

#[test]
fn a_signing_key_that_cannot_sign_is_said_and_the_receipt_is_unsigned() {
    let s = setup(SIGNED, &[]);
    let missing = s.dev.scratch("no-such-key");
    sign_with(&s.dev, &missing);
    let out = verify_exits(&s.dev, "export-tests", 0);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("export-tests: receipt not signed:"),
        "{}",
        show(&out)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("unsigned: the signature could not be made"),
        "{}",
        show(&out)
    );
    assert!(s.note()["checks"][0].get("signature").is_none());
}

/// `gpg` with its home in `dir`, for the OpenPGP tests; `None` where gpg is
/// not installed (said, and a failure under CI).
fn gpg(dir: &Path) -> Option<impl Fn(&[&str]) -> std::process::Output> {
    if std::process::Command::new("gpg")
        .arg("--version")
        .output()
        .is_err()
    {
        // `CI` too: a runner that sets it must run the OpenPGP test.
        crate::support::skip(
            "the OpenPGP receipt test",
            "gpg is not installed (apt-get install gnupg)",
            Some("CI"),
        );
        return None;
    }
    std::fs::create_dir_all(dir).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let dir = dir.to_path_buf();
    Some(move |args: &[&str]| {
        std::process::Command::new("gpg")
            .arg("--homedir")
            .arg(&dir)
            .args([
                "--batch",
                "--no-tty",
                "--pinentry-mode",
                "loopback",
                "--passphrase",
                "",
            ])
            .args(args)
            .output()
            .unwrap()
    })
}

#[test]
fn an_openpgp_signed_receipt_proves_its_check_and_an_unlisted_one_does_not() {
    let probe = TestRepo::new();
    let home = probe.scratch("gnupg");
    let Some(gpg) = gpg(&home) else { return };
    for who in ["Ada <ada@example.org>", "Mallory <mallory@example.org>"] {
        let out = gpg(&["--quick-gen-key", who, "ed25519", "sign", "never"]);
        assert!(out.status.success(), "{}", show(&out));
    }
    let ada = gpg(&["--armor", "--export", "ada@example.org"]);
    assert!(ada.status.success(), "{}", show(&ada));
    let s = setup("  signers: .gate/signers.asc\n", &[]);
    s.dev.write(".gate/signers.asc", &ada.stdout);
    s.dev
        .git(&["rm", "-q", "--cached", ".gate/allowed_signers"]);
    s.dev.git(&["add", ".gate/signers.asc"]);
    s.dev
        .git(&["commit", "-q", "-m", "signers: ada's OpenPGP key"]);
    // The base is now the commit that lists ada; the work goes on top.
    let base = s.dev.head();
    s.dev
        .write("src/export/mod.rs", "// export, CSV, OpenPGP\n");
    s.dev.commit_all("export: more\n\nTask: T-42");
    // git's gpg.program, pointed at the test's keyring.
    let wrapper = s.dev.scratch("gpg-wrapper");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nexec gpg --homedir '{}' \"$@\"\n",
            home.display()
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    s.dev
        .git(&["config", "gpg.program", wrapper.to_str().unwrap()]);
    for (signer, code, cause) in [
        ("ada@example.org", 0, None),
        ("mallory@example.org", 1, Some("receipt_unverified")),
    ] {
        s.dev.git(&["config", "user.signingKey", signer]);
        let out = verify_exits(&s.dev, "export-tests", 0);
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("signed with openpgp key"),
            "{}",
            show(&out)
        );
        s.dev
            .git(&["push", "-q", "--no-verify", "-f", "origin", "main"]);
        s.dev.git(&[
            "push",
            "-q",
            "--no-verify",
            "-f",
            "origin",
            "refs/notes/gate",
        ]);
        let (got, doc) = check_range(&s.remote, &format!("{base}..main"), &[]);
        assert_eq!(
            (got, causes(&doc)),
            (
                code,
                cause.into_iter().map(String::from).collect::<Vec<_>>()
            ),
            "{signer}: {doc:#}"
        );
        if code == 0 {
            assert!(
                summary(&doc).contains("signed by Ada <ada@example.org> (OpenPGP "),
                "{doc:#}"
            );
        }
    }
}

/// `gate check --range BASE..TIP --json --run-unproved` (and `extra`) in
/// the CI clone `ci`.
fn run_unproved(ci: &TestRepo, base: &str, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["--run-unproved"];
    args.extend_from_slice(extra);
    check_range(ci, &format!("{base}..{}", ci.head()), &args)
}

impl Setup {
    /// A fresh clone of what was pushed, as CI has it, without the notes.
    fn ci_clone(&self) -> TestRepo {
        self.dev
            .git(&["push", "-q", "--no-verify", "-f", "origin", "main"]);
        let ci = TestRepo::new();
        ci.git(&[
            "remote",
            "add",
            "origin",
            self.remote.path().to_str().unwrap(),
        ]);
        ci.git(&[
            "fetch",
            "-q",
            "origin",
            "+refs/heads/*:refs/remotes/origin/*",
        ]);
        ci.git(&["checkout", "-q", "-B", "main", "origin/main"]);
        ci
    }
}

#[test]
fn run_unproved_proves_a_check_no_one_signed_by_running_it_on_the_tip() {
    let s = setup(SIGNED, &[]);
    // Nobody ran or signed anything; no notes travelled.
    let ci = s.ci_clone();
    // CI's checkout lacks the ignored ctl/verdict the check reads: it fails.
    let (code, doc) = run_unproved(&ci, &s.base, &[]);
    assert_eq!(
        (code, causes(&doc)),
        (1, vec!["receipt_failed".to_string()]),
        "{doc:#}"
    );
    assert!(only_message(&doc).contains("was run here on"), "{doc:#}");
    // With it, the run passes and proves the check.
    ci.write("ctl/verdict", "pass\n");
    let (code, doc) = run_unproved(&ci, &s.base, &[]);
    assert_eq!((code, causes(&doc)), (0, vec![]), "{doc:#}");
    assert!(
        summary(&doc).contains("export-tests by running here (ev-"),
        "{doc:#}"
    );
    // Its receipt is recorded in CI's clone and attached to the tip.
    let note = ci.git(&["notes", "--ref", "gate", "show", "HEAD"]);
    assert!(note.contains("\"passed\": true"), "{note}");
    // Without the flag, nothing is run: the unsigned note does not count.
    let (code, doc) = check_range(&ci, &format!("{}..HEAD", s.base), &[]);
    assert_eq!(
        (code, causes(&doc)),
        (1, vec!["receipt_unverified".to_string()]),
        "{doc:#}"
    );
}

#[test]
fn run_unproved_runs_the_trusted_command_not_the_one_the_tip_declares() {
    let s = setup(SIGNED, &[]);
    // The tip makes the check a no-op, and commits that with its task.
    let plan = std::fs::read_to_string(s.dev.path().join(".gate/plan.yaml")).unwrap();
    let loosened = plan.replace("test -f check.sh && sh check.sh", "true");
    assert_ne!(plan, loosened);
    s.dev.write(".gate/plan.yaml", loosened);
    s.dev.commit_all("plan: a faster check\n\nTask: T-42");
    let ci = s.ci_clone();
    // The base's command runs (and fails without ctl/verdict), not `true`.
    let (code, doc) = run_unproved(&ci, &s.base, &[]);
    assert_eq!(code, 1, "{doc:#}");
    let causes = causes(&doc);
    assert!(causes.contains(&"receipt_failed".to_string()), "{doc:#}");
    assert!(causes.contains(&"plan_loosened".to_string()), "{doc:#}");
}

#[test]
fn run_unproved_refuses_to_run_on_a_work_tree_that_is_not_the_tip() {
    let s = setup(SIGNED, &[]);
    let ci = s.ci_clone();
    ci.write("ctl/verdict", "pass\n");
    ci.write("src/export/mod.rs", "// not what the tip holds\n");
    let (code, doc) = run_unproved(&ci, &s.base, &[]);
    assert_eq!(
        (code, causes(&doc)),
        (3, vec!["input_unreadable".to_string()]),
        "{doc:#}"
    );
    assert!(
        only_message(&doc).contains("the work tree does not hold"),
        "{doc:#}"
    );
    // Nothing ran.
    assert!(!ci.path().join("ctl/ran").exists());
}

#[test]
fn run_unproved_needs_a_work_tree() {
    let s = setup(SIGNED, &[]);
    s.dev
        .git(&["push", "-q", "--no-verify", "-f", "origin", "main"]);
    let out = s
        .remote
        .gate()
        .args([
            "check",
            "--range",
            &format!("{}..main", s.base),
            "--run-unproved",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
}

#[test]
fn pre_push_refuses_a_receipt_ci_would_not_believe() {
    let probe = TestRepo::new();
    let (ada_key, ada) = keypair(&probe, "ada");
    let (mallory, _) = keypair(&probe, "mallory");
    let s = setup(SIGNED, &[("ada@example.org", &ada)]);
    // The remote already has the base, so pre-push reads its signers there.
    s.dev.git(&[
        "push",
        "-q",
        "--no-verify",
        "origin",
        &format!("{}:refs/heads/main", s.base),
    ]);
    s.dev.git(&["fetch", "-q", "origin"]);
    let out = s.dev.gate().arg("install").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let push = |dev: &TestRepo| dev.git_may_fail(&["push", "-q", "origin", "main"]);
    // Signed by a key the remote's signers do not list: refused at the push.
    sign_with(&s.dev, &mallory);
    verify_exits(&s.dev, "export-tests", 0);
    let out = push(&s.dev);
    assert!(!out.status.success(), "{}", show(&out));
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains("will not count where the push is judged"),
        "{said}"
    );
    // Signed by ada: the push goes through, and CI agrees.
    sign_with(&s.dev, &ada_key);
    verify_exits(&s.dev, "export-tests", 0);
    let out = push(&s.dev);
    assert!(out.status.success(), "{}", show(&out));
    let (code, doc) = s.push_and_check();
    assert_eq!((code, causes(&doc)), (0, vec![]), "{doc:#}");
}
