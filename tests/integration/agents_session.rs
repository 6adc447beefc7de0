//! docs/agents.md's "A session", kept true: the commands are read from the
//! page's marked block (never copied here), run one by one with `sh` in a
//! repository set up as the README's flow sets one up (`gate init`, its
//! example plan, committed, `gate install`), and each command's output
//! (stdout and stderr as one stream, then `[exit N]` when it is not 0) must
//! be what the page shows, the temporary paths read as `/home/ada/invoices`
//! and timestamps and evidence ids compared by shape. `GATE_BLESS=1`
//! rewrites the block from what gate printed.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::golden::{redact, redact_fresh_ids};
use crate::support::{TestRepo, git_env, marked_block};

const BEGIN: &str = "<!-- agents-session: begin -->\n```console\n";
const END: &str = "```\n<!-- agents-session: end -->";

/// Where the page shows the repository, and the agent's HOME.
const SHOWN_ROOT: &str = "/home/ada/invoices";
const SHOWN_HOME: &str = "/home/ada";

const PAGE: &str = "docs/agents.md";

fn page() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(PAGE)
}

/// The page, and the byte range of the marked block's body.
fn block() -> (String, std::ops::Range<usize>) {
    marked_block(PAGE, BEGIN, END)
}

/// The block's commands: each starts at a line `$ …`; a command that opens
/// a here-document (`<<EOF`, `<<'EOF'`) runs on to its `EOF` line.
fn commands(body: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut lines = body.lines();
    while let Some(line) = lines.next() {
        let Some(command) = line.strip_prefix("$ ") else {
            continue;
        };
        let mut command = command.to_string();
        if command.contains("<<EOF") || command.contains("<<'EOF'") {
            for more in lines.by_ref() {
                command.push('\n');
                command.push_str(more);
                if more == "EOF" {
                    break;
                }
            }
        }
        commands.push(command);
    }
    commands
}

/// The repository of the session: a project with a README, `gate init`'s
/// policy and example plan (issue 17, intent I-export, check
/// export-tests) committed, and gate's hooks installed.
fn setup() -> TestRepo {
    let repo = TestRepo::new();
    repo.git(&["config", "user.name", "Ada"]);
    repo.git(&["config", "user.email", "ada@example.com"]);
    repo.write("README.md", "# invoices\n");
    repo.commit_all("initial");
    for verb in [&["init"][..], &["install"][..]] {
        let out = repo.gate().args(verb).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", crate::fixture::show(&out));
        if verb == ["init"] {
            repo.commit_all("Adopt gate");
        }
    }
    repo
}

/// Run each command in the repository (stderr into stdout, so the two
/// interleave as a terminal shows them) and write the transcript.
fn run(repo: &TestRepo, commands: &[String]) -> String {
    let gate = PathBuf::from(assert_cmd::cargo::cargo_bin!("gate"));
    let bin = gate.parent().expect("the binary's directory");
    let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let home = repo.path().parent().unwrap().join("home");
    let mut transcript = String::new();
    for command in commands {
        let out = Command::new("sh")
            .current_dir(repo.path())
            .env_clear()
            .envs(git_env())
            .env("PATH", &path)
            .env("HOME", &home)
            .args(["-c", &format!("exec 2>&1\n{command}\n")])
            .output()
            .expect("run sh");
        transcript.push_str(&format!("$ {command}\n"));
        transcript.push_str(&String::from_utf8_lossy(&out.stdout));
        if !transcript.ends_with('\n') {
            transcript.push('\n');
        }
        match out.status.code() {
            Some(0) => {}
            Some(code) => transcript.push_str(&format!("[exit {code}]\n")),
            None => transcript.push_str("[killed by a signal]\n"),
        }
    }
    let base = repo.path().parent().unwrap();
    transcript
        .replace(&repo.path().display().to_string(), SHOWN_ROOT)
        .replace(&home.display().to_string(), SHOWN_HOME)
        .replace(&base.display().to_string(), SHOWN_HOME)
}

/// What may differ between two honest runs: the time, evidence ids, the
/// fresh part of the task's id, and the ids of commits holding a task file
/// (its creation time is in it).
fn shape(text: &str) -> String {
    let mut out = String::new();
    let redacted = redact_fresh_ids(&redact(None, text), "T-17");
    for word in redacted.split_inclusive(|c: char| !c.is_ascii_alphanumeric()) {
        let (id, rest) = word.split_at(
            word.trim_end_matches(|c: char| !c.is_ascii_alphanumeric())
                .len(),
        );
        // A short id (12 digits) or a full one (40) may be digits only: one
        // in three hundred is.
        if id.len() >= 7
            && id
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            && (id.len() == 12 || id.len() == 40 || id.bytes().any(|b| b.is_ascii_alphabetic()))
        {
            out.push_str("[ID]");
        } else {
            out.push_str(id);
        }
        out.push_str(rest);
    }
    out
}

#[test]
fn the_session_in_docs_agents_md_is_what_gate_prints() {
    let (text, range) = block();
    let commands = commands(&text[range.clone()]);
    // The loop, in order: context, may-touch, a denied edit, the widening,
    // verify, status, the stop hook; never a hook-skipping commit.
    let order = [
        "gate context",
        "gate may-touch",
        "gate hook claude-code pre-tool-use",
        "gate task scope add",
        "gate verify",
        "gate status",
        "gate hook claude-code stop",
    ];
    let mut at = 0;
    for step in order {
        let found = commands[at..]
            .iter()
            .position(|c| c.starts_with(step))
            .unwrap_or_else(|| panic!("the session runs `{step}` after step {at}: {commands:#?}"));
        at += found + 1;
    }
    assert!(
        !commands.iter().any(|c| c.contains("--no-verify")),
        "{commands:#?}"
    );

    let repo = setup();
    let actual = run(&repo, &commands);
    if std::env::var_os("GATE_BLESS").is_some() {
        let mut page_text = text.clone();
        page_text.replace_range(range, &actual);
        std::fs::write(page(), page_text).unwrap();
        return;
    }
    let shown = &text[range];
    assert!(
        shape(shown) == shape(&actual),
        "docs/agents.md's session is not what gate prints now (GATE_BLESS=1 rewrites it)\n--- the page\n{shown}\n--- gate\n{actual}---"
    );
}
