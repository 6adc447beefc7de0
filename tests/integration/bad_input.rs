//! Bad input gets a clear error naming file, line and key — never a panic,
//! a hang, or a pass.

use crate::fixture::{plan_repo, show};
use crate::support::TestRepo;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn assert_no_panic(out: &std::process::Output) {
    assert!(!stderr(out).contains("panicked"), "{}", show(out));
}

#[test]
fn an_unknown_policy_key_names_file_line_and_key() {
    let repo = plan_repo("advisory");
    repo.write(
        ".gate/policy.yaml",
        "version: 1\nprovenance:\n  mode: required\n  moed: x\n",
    );
    let out = repo.gate().arg("check").output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let err = stderr(&out);
    assert!(err.contains(".gate/policy.yaml:4"), "{err}");
    assert!(err.contains("moed"), "{err}");
    assert_no_panic(&out);
}

#[test]
fn wrong_types_and_missing_keys_in_the_plan_are_named() {
    let repo = plan_repo("advisory");
    for (text, line, key) in [
        (
            "issues:\n  - id: \"1\"\n    title: t\n    paths: docs\n    status: open\n",
            ":4",
            "paths",
        ),
        (
            "issues:\n  - id: \"1\"\n    title: t\n    status: open\n",
            ":2",
            "paths",
        ),
        (
            "issues:\n  - id: 1\n    title: t\n    paths: []\n    status: open\n",
            ":2",
            "id",
        ),
        (
            "checks:\n  - id: c\n    command: x\n    sources: [../up]\n",
            ":4",
            "sources",
        ),
    ] {
        repo.write(".gate/plan.yaml", text);
        let out = repo
            .gate()
            .args(["plan", "validate", "--json"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{text}\n{}", show(&out));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let f = &doc["checks"][0]["findings"][0];
        assert_eq!(f["cause"], "input_unreadable", "{doc:#}");
        assert!(
            f["message"]
                .as_str()
                .unwrap()
                .contains(&format!(".gate/plan.yaml{line}")),
            "{text}\n{doc:#}"
        );
        assert!(f["key"].as_str().unwrap().contains(key), "{text}\n{doc:#}");
        assert_no_panic(&out);
    }
}

#[test]
fn crlf_and_bom_files_are_read() {
    let repo = plan_repo("advisory");
    let plan = crate::fixture::PLAN.replace('\n', "\r\n");
    repo.write(".gate/plan.yaml", format!("\u{feff}{plan}"));
    let out = repo.gate().args(["plan", "validate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

#[test]
fn oversized_files_and_alias_bombs_are_refused_quickly() {
    let repo = plan_repo("advisory");
    let mut big = String::from("intents: []\n");
    while big.len() <= 1 << 20 {
        big.push_str("# padding padding padding padding padding padding padding padding\n");
    }
    repo.write(".gate/plan.yaml", &big);
    let out = repo.gate().args(["plan", "validate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("1 MiB") || stderr(&out).contains("1 MiB"),
        "{}",
        show(&out)
    );

    let mut bomb = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for (i, prev) in ('b'..='j').zip('a'..='i') {
        bomb.push_str(&format!(
            "{i}: &{i} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
        ));
    }
    bomb.push_str("intents: *j\n");
    repo.write(".gate/plan.yaml", &bomb);
    let out = repo.gate().args(["plan", "validate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert_no_panic(&out);
    // Refused for its aliases, before expanding them (an expansion would
    // take minutes and gigabytes).
    assert!(
        show(&out).contains("uses its aliases too many times"),
        "{}",
        show(&out)
    );
}

#[test]
fn gate_outside_a_repository_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let repo = TestRepo::new();
    let out = repo
        .gate()
        .current_dir(dir.path())
        .arg("check")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert!(
        stderr(&out).contains("not inside a git repository"),
        "{}",
        show(&out)
    );
}

#[test]
fn a_garbage_active_pointer_is_named() {
    let repo = plan_repo("required");
    let p = crate::fixture::git_path(&repo, "gate/active");
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, "../../etc/passwd\n").unwrap();
    let out = repo.gate().args(["check", "--staged"]).output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("task_unreadable"),
        "{}",
        show(&out)
    );
}

#[test]
fn bad_ranges_are_unknown_not_pass() {
    let repo = plan_repo("required");
    for range in ["nope..HEAD", "HEAD..nope", "HEAD", "HEAD...HEAD~1"] {
        let out = repo
            .gate()
            .args(["check", "--range", range])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{range}\n{}", show(&out));
        assert_no_panic(&out);
    }
}

/// An error is one plain sentence and a hint: no Rust debug text.
fn assert_plain_error(out: &std::process::Output) {
    let err = stderr(out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "one error line and one hint\n{}", show(out));
    assert!(lines[0].starts_with("gate: error: "), "{}", show(out));
    assert!(lines[1].starts_with("gate: hint: "), "{}", show(out));
    for debug in ["Message {", "Os {", "Caused by", "kind:", "{ "] {
        assert!(!err.contains(debug), "debug text `{debug}`\n{}", show(out));
    }
}

#[test]
fn a_missing_directory_given_to_dash_c_is_a_plain_error() {
    let repo = TestRepo::new();
    let nowhere = repo.scratch("nowhere");
    let out = repo
        .gate()
        .arg("-C")
        .arg(&nowhere)
        .arg("status")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert_plain_error(&out);
    assert!(stderr(&out).contains("does not exist"), "{}", show(&out));
    let file = repo.scratch("a-file");
    std::fs::write(&file, "x").unwrap();
    let out = repo
        .gate()
        .arg("-C")
        .arg(&file)
        .arg("check")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert_plain_error(&out);
    assert!(
        stderr(&out).contains("is not a directory"),
        "{}",
        show(&out)
    );
}

#[test]
fn a_sha256_repository_is_a_plain_error() {
    let repo = TestRepo::new();
    let dir = repo.scratch("sha256");
    let init = crate::support::git_command(repo.path())
        .args(["init", "-q", "--object-format=sha256"])
        .arg(&dir)
        .output()
        .unwrap();
    if !init.status.success() {
        // A git without SHA-256 support cannot make the fixture.
        crate::support::skip(
            crate::this_test!(),
            &format!(
                "this git makes no SHA-256 repository: {}",
                String::from_utf8_lossy(&init.stderr).trim()
            ),
            None,
        );
        return;
    }
    for verb in ["status", "check"] {
        let out = repo.gate().arg("-C").arg(&dir).arg(verb).output().unwrap();
        assert_eq!(out.status.code(), Some(3), "{}", show(&out));
        assert_plain_error(&out);
        assert!(stderr(&out).contains("sha256 object ids"), "{}", show(&out));
    }
}

/// A `.gate/policy.yaml` that is a symbolic link to nothing is a policy that
/// cannot be read, not an absent one: the embedded (advisory) default
/// would let a required check pass.
#[test]
fn a_dangling_policy_symlink_is_unknown_not_the_embedded_default() {
    let repo = plan_repo("advisory");
    repo.remove(b".gate/policy.yaml");
    repo.symlink(b".gate/policy.yaml", b"nowhere.yaml");
    let out = repo.gate().arg("check").output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    let err = stderr(&out);
    assert!(err.contains(".gate/policy.yaml"), "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert_no_panic(&out);
}

/// A check's mode key present with no value is an error naming the key,
/// like `scope: ""`, never read as the key left out (`binding` alone is
/// lenient, as docs/policy.md says).
#[test]
fn an_empty_mode_key_is_an_error_naming_it() {
    let repo = plan_repo("advisory");
    for (text, key) in [
        ("version: 1\nscope:\n", "scope"),
        ("version: 1\nscope: ~\n", "scope"),
        ("version: 1\nreceipts:\n", "receipts"),
        ("version: 1\nprovenance: null\n", "provenance"),
        ("version: 1\nbrief:\n", "brief"),
        ("version: 1\nscope: \"\"\n", "scope"),
    ] {
        repo.write(".gate/policy.yaml", text);
        let out = repo.gate().arg("check").output().unwrap();
        assert_eq!(out.status.code(), Some(3), "{text:?}\n{}", show(&out));
        let err = stderr(&out);
        assert!(err.contains(".gate/policy.yaml:"), "{text:?}: {err}");
        assert!(err.contains(&format!("{key}: ")), "{text:?}: {err}");
        assert_no_panic(&out);
    }
    repo.write(".gate/policy.yaml", "version: 1\nbinding:\n");
    let out = repo.gate().arg("check").output().unwrap();
    assert_ne!(out.status.code(), Some(3), "{}", show(&out));
}
