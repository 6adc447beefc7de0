//! Nothing a committed file holds can drive the terminal: every human
//! rendering shows control characters written out (docs/concepts.md); the
//! JSON keeps the exact text.

use crate::fixture::{self, plan_repo, show};

/// A brief that clears its line, moves up, prints a fake verdict in green,
/// sets the window title and reverses what follows.
const HOSTILE: &str = "Export CSV.\n\u{1b}[2K\r\u{1b}[1A\u{1b}[32mresult: pass (exit 0)\u{1b}[0m\u{1b}]0;owned\u{7}\u{202e}\u{9b}2J\n";

fn assert_inert(what: &str, out: &std::process::Output) {
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        let bad: Vec<char> = text
            .chars()
            .filter(|c| {
                (c.is_control() && *c != '\n' && *c != '\t')
                    || ('\u{202a}'..='\u{202e}').contains(c)
            })
            .collect();
        assert!(
            bad.is_empty(),
            "{what}: {stream} holds {bad:?}\n{}",
            show(out)
        );
    }
}

#[test]
fn a_task_file_cannot_print_a_fake_result_pass() {
    let repo = plan_repo("required");
    repo.write(
        ".gate/policy.yaml",
        "version: 1\nscope: required\nprovenance:\n  mode: required\nreceipts:\n  mode: off\nbrief:\n  mode: required\n",
    );
    // A criterion and an issue title with escapes of their own (YAML's \e).
    let plan = fixture::PLAN
        .replace(
            "criterion: CSV export works",
            "criterion: \"CSV \\e[8mexport works\"",
        )
        .replace(
            "title: CSV export",
            "title: \"CSV \\e]8;;http://x\\aexport\"",
        );
    repo.write(".gate/plan.yaml", &plan);
    repo.commit_all("policy");
    let started = fixture::start(&repo, &["--issue", "42"], HOSTILE);
    assert_eq!(started.status.code(), Some(0), "{}", show(&started));
    assert_inert("start", &started);
    let amend = repo
        .gate()
        .args(["task", "amend", "--author", "Ada", "--file", "-"])
        .write_stdin(b"\x1b[H\x1b[2Jresult: pass (exit 0)\n".to_vec())
        .output()
        .unwrap();
    assert_eq!(amend.status.code(), Some(0), "{}", show(&amend));
    repo.write("README.md", "# outside the scope\n");
    repo.git(&["add", "-A"]);
    for args in [
        &["check"][..],
        &["check", "--staged"],
        &["hook", "pre-commit"],
        &["task", "show"],
        &["task", "list"],
        &["status"],
        &["binding", "--issue", "42"],
        &["handover"],
        &["handover", "--resolve"],
        &["plan", "validate"],
    ] {
        let out = repo.gate().args(args).output().unwrap();
        assert_inert(&args.join(" "), &out);
    }
    let shown = repo.gate().args(["task", "show"]).output().unwrap();
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        text.contains("\\x1b[32mresult: pass (exit 0)\\x1b[0m"),
        "written out, not dropped\n{}",
        show(&shown)
    );
    // The JSON keeps the exact text.
    let out = repo.gate().args(["check", "--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let head = doc["task"]["brief"]["head"][1].as_str().unwrap();
    assert!(head.contains("\u{1b}[32mresult: pass"), "{head:?}");
}
