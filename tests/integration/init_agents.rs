//! `gate init --agents [--print]` (docs/agents.md): the agent's loop in
//! AGENTS.md between gate's markers — written, appended to an existing file
//! (the rest kept byte for byte), replaced between its markers, idempotent;
//! markers that do not pair touch nothing, and the hint's action works.

use crate::fixture::show;
use crate::golden::{assert_golden, transcript};
use crate::support::TestRepo;

fn agents(repo: &TestRepo) -> Vec<u8> {
    std::fs::read(repo.path().join("AGENTS.md")).unwrap()
}

fn init_agents(repo: &TestRepo) -> std::process::Output {
    repo.gate().args(["init", "--agents"]).output().unwrap()
}

#[test]
fn print_shows_the_block_and_writes_nothing() {
    let repo = TestRepo::new();
    let out = repo
        .gate()
        .args(["init", "--agents", "--print"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_golden("init/agents-print.txt", &transcript(Some(&repo), &out));
    assert_eq!(out.stdout, gate::agents_md::agents_block().into_bytes());
    assert!(!repo.path().join("AGENTS.md").exists());
    let block = String::from_utf8(out.stdout).unwrap();
    for step in [
        "gate context",
        "gate may-touch",
        "gate verify",
        "gate status",
        "gate task ask",
        "--no-verify",
    ] {
        assert!(block.contains(step), "{step} in\n{block}");
    }
}

#[test]
fn a_new_agents_md_holds_the_block_and_a_second_run_changes_nothing() {
    let repo = TestRepo::new();
    let out = init_agents(&repo);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_golden("init/agents.txt", &transcript(Some(&repo), &out));
    assert_eq!(agents(&repo), gate::agents_md::agents_block().into_bytes());
    let again = init_agents(&repo);
    assert_eq!(again.status.code(), Some(0), "{}", show(&again));
    assert!(String::from_utf8_lossy(&again.stdout).contains("kept AGENTS.md"));
    assert_eq!(agents(&repo), gate::agents_md::agents_block().into_bytes());
    // --agents writes only AGENTS.md.
    assert!(!repo.path().join(".gate").exists());
}

#[test]
fn an_existing_agents_md_is_kept_and_the_block_appended_once() {
    let repo = TestRepo::new();
    let ours = b"# Our agents\n\nUse tabs. Caf\xc3\xa9 \xff bytes stay.";
    repo.write("AGENTS.md", ours);
    let out = init_agents(&repo);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let after = agents(&repo);
    assert!(
        after.starts_with(ours),
        "{}",
        String::from_utf8_lossy(&after)
    );
    let mut want = ours.to_vec();
    want.extend_from_slice(b"\n\n");
    want.extend_from_slice(gate::agents_md::agents_block().as_bytes());
    assert_eq!(after, want);
    let again = init_agents(&repo);
    assert_eq!(again.status.code(), Some(0), "{}", show(&again));
    assert_eq!(agents(&repo), want);
}

#[test]
fn an_old_block_is_replaced_between_its_markers_only() {
    let repo = TestRepo::new();
    repo.write(
        "AGENTS.md",
        "top\n<!-- gate:agents:begin -->\nan older loop\n<!-- gate:agents:end -->\nbottom\n",
    );
    let out = init_agents(&repo);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("updated the gate block"));
    let want = format!("top\n{}bottom\n", gate::agents_md::agents_block());
    assert_eq!(agents(&repo), want.into_bytes());
}

#[test]
fn unpaired_markers_touch_nothing_and_the_hint_gets_through() {
    let repo = TestRepo::new();
    let broken = "mine\n<!-- gate:agents:begin -->\nhalf a block\n";
    repo.write("AGENTS.md", broken);
    let out = init_agents(&repo);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_golden("init/agents-unpaired.txt", &transcript(Some(&repo), &out));
    assert_eq!(agents(&repo), broken.as_bytes());
    // The hint: one begin line and one end line after it, then run again.
    repo.write("AGENTS.md", format!("{broken}<!-- gate:agents:end -->\n"));
    let out = init_agents(&repo);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let want = format!("mine\n{}", gate::agents_md::agents_block());
    assert_eq!(agents(&repo), want.into_bytes());
}

#[test]
fn print_without_agents_is_a_usage_error() {
    let repo = TestRepo::new();
    let out = repo.gate().args(["init", "--print"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
}
