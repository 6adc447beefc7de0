//! `gate init`, `-C`, and color.

use crate::fixture::show;
use crate::golden::{assert_golden, transcript};
use crate::support::TestRepo;

#[test]
fn init_writes_the_default_policy_and_example_plan() {
    let repo = TestRepo::new();
    let out = repo.gate().arg("init").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_golden("init/first.txt", &transcript(Some(&repo), &out));
    // Each YAML file opens with the line naming its schema (docs/schema.md).
    let policy = std::fs::read_to_string(repo.path().join(".gate/policy.yaml")).unwrap();
    assert_eq!(
        policy,
        "# yaml-language-server: $schema=schema/policy.json\n".to_string()
            + gate::policy::DEFAULT_POLICY_YAML
    );
    let plan = std::fs::read_to_string(repo.path().join(".gate/plan.yaml")).unwrap();
    assert_eq!(
        plan,
        "# yaml-language-server: $schema=schema/plan.json\n".to_string()
            + gate::commands::init::EXAMPLE_PLAN
    );
    // What init writes is valid and clean.
    let out = repo.gate().args(["plan", "validate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
}

#[test]
fn init_never_overwrites_without_force() {
    let repo = TestRepo::new();
    repo.write(".gate/policy.yaml", "version: 1\nscope: required\n");
    let out = repo.gate().arg("init").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("kept .gate/policy.yaml"));
    assert_eq!(
        std::fs::read_to_string(repo.path().join(".gate/policy.yaml")).unwrap(),
        "version: 1\nscope: required\n"
    );
    let out = repo.gate().args(["init", "--force"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(
        std::fs::read_to_string(repo.path().join(".gate/policy.yaml")).unwrap(),
        "# yaml-language-server: $schema=schema/policy.json\n".to_string()
            + gate::policy::DEFAULT_POLICY_YAML
    );
}

#[test]
fn init_from_a_subdirectory_and_with_dash_c() {
    let repo = TestRepo::new();
    repo.write("sub/dir/file.txt", "x\n");
    let out = repo
        .gate()
        .current_dir(repo.path().join("sub/dir"))
        .arg("init")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(repo.path().join(".gate/policy.yaml").exists());
    let elsewhere = tempfile::tempdir().unwrap();
    let other = TestRepo::new();
    let out = other
        .gate()
        .current_dir(elsewhere.path())
        .arg("-C")
        .arg(other.path())
        .arg("init")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(other.path().join(".gate/plan.yaml").exists());
}

#[test]
fn color_only_when_forced_and_never_with_no_color() {
    let repo = TestRepo::new();
    repo.write("a", "a\n");
    repo.commit_all("a");
    let plain = repo.gate().arg("check").output().unwrap();
    assert!(!plain.stdout.contains(&0x1b), "not a terminal: no escapes");
    let forced = repo
        .gate()
        .arg("check")
        .env("FORCE_COLOR", "1")
        .output()
        .unwrap();
    assert!(forced.stdout.contains(&0x1b), "FORCE_COLOR colors");
    let off = repo
        .gate()
        .arg("check")
        .env("FORCE_COLOR", "1")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!off.stdout.contains(&0x1b), "NO_COLOR wins");
    assert_eq!(
        String::from_utf8_lossy(&off.stdout),
        String::from_utf8_lossy(&plain.stdout)
    );
}
