//! Every `--help` is pinned by a golden file: help text is interface.

use crate::golden::{assert_golden, transcript};
use crate::support::TestRepo;

pub const VERBS: &[&[&str]] = &[
    &[],
    &["init"],
    &["install"],
    &["uninstall"],
    &["check"],
    &["hook"],
    &["hook", "pre-commit"],
    &["hook", "pre-push"],
    &["hook", "post-checkout"],
    &["hook", "claude-code"],
    &["hook", "claude-code", "pre-tool-use"],
    &["hook", "claude-code", "stop"],
    &["start"],
    &["task"],
    &["task", "list"],
    &["task", "show"],
    &["task", "switch"],
    &["task", "amend"],
    &["task", "ask"],
    &["task", "note"],
    &["task", "finish"],
    &["task", "abandon"],
    &["task", "validate"],
    &["plan"],
    &["plan", "validate"],
    &["binding"],
    &["handover"],
    &["verify"],
    &["status"],
    &["receipts"],
    &["receipts", "fetch"],
    &["receipts", "push"],
    &["may-touch"],
    &["schema"],
    &["completions"],
    &["man"],
    &["mcp"],
    &["context"],
];

#[test]
fn every_help_matches_its_golden() {
    let repo = TestRepo::new();
    for verb in VERBS {
        let mut args: Vec<&str> = verb.to_vec();
        args.push("--help");
        let out = repo.gate().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let name = if verb.is_empty() {
            "gate".to_string()
        } else {
            verb.join("-")
        };
        assert_golden(&format!("help/{name}.txt"), &transcript(None, &out));
    }
}

#[test]
fn usage_errors_exit_2() {
    let repo = TestRepo::new();
    for args in [
        &["frobnicate"][..],
        &["check", "--staged", "--range", "a..b"],
        &["check", "--only", "nonsense"],
        &["start", "--because", "x"],
        &["hook", "pre-push"],
    ] {
        let out = repo.gate().args(args).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
