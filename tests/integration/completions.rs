//! `gate completions SHELL` and `gate man` (docs/install.md): made from
//! the clap definitions, checked by the shells and by groff themselves.
//! A shell or groff that is not installed makes its part say `SKIPPED`
//! (a failure under `GATE_FULL_SUITE=1`; `.ci/run` installs them). No
//! PowerShell here: its script is checked for its registration only.

use std::process::Command;

use crate::support::TestRepo;

/// Whether `tool` runs here; when not, the part of `test` that needs it
/// is skipped, and said so.
fn have(tool: &str, test: &str) -> bool {
    let found = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        crate::support::skip(
            test,
            &format!("{tool} is not installed (apt-get install {tool})"),
            None,
        );
    }
    found
}

fn script(repo: &TestRepo, shell: &str) -> std::path::PathBuf {
    let out = repo.gate().args(["completions", shell]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{shell}: {out:?}");
    assert!(!out.stdout.is_empty(), "{shell}");
    let path = repo.scratch(&format!("completion.{shell}"));
    std::fs::write(&path, &out.stdout).unwrap();
    path
}

/// What bash's completion function offers for the words of `line` (the
/// last one being completed), as bash calls it on a Tab.
fn bash_offers(script: &std::path::Path, line: &[&str]) -> Vec<String> {
    let words = line
        .iter()
        .map(|w| format!("'{w}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let program = format!(
        "source '{}'; COMP_WORDS=({words}); COMP_CWORD={}; COMP_LINE='{}'; COMP_POINT=${{#COMP_LINE}}; \
         _gate gate '{}' '{}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        line.len() - 1,
        line.join(" "),
        line[line.len() - 1],
        line[line.len() - 2],
    );
    let out = Command::new("bash")
        .args(["-c", &program])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

#[test]
fn bash_completes_verbs_flags_and_their_values() {
    let test = crate::this_test!();
    if !have("bash", test) {
        return;
    }
    let repo = TestRepo::new();
    let script = script(&repo, "bash");
    assert_eq!(bash_offers(&script, &["gate", "ch"]), ["check"]);
    let verbs = bash_offers(&script, &["gate", ""]);
    for verb in [
        "check",
        "start",
        "verify",
        "may-touch",
        "completions",
        "man",
    ] {
        assert!(verbs.iter().any(|v| v == verb), "{verb}: {verbs:?}");
    }
    assert_eq!(
        bash_offers(&script, &["gate", "check", "--fo"]),
        ["--format"]
    );
    let formats = bash_offers(&script, &["gate", "check", "--format", ""]);
    assert_eq!(formats, ["human", "json", "github", "markdown", "sarif"]);
    assert_eq!(bash_offers(&script, &["gate", "task", "am"]), ["amend"]);
}

#[test]
fn fish_and_zsh_read_their_scripts() {
    let test = crate::this_test!();
    let repo = TestRepo::new();
    if have("fish", test) {
        let script = script(&repo, "fish");
        let out = Command::new("fish")
            .arg("-n")
            .arg(&script)
            .output()
            .unwrap();
        assert!(out.status.success(), "fish -n: {out:?}");
        let asked = format!(
            "source '{}'; complete -C 'gate check --fo'",
            script.display()
        );
        let out = Command::new("fish").args(["-c", &asked]).output().unwrap();
        let offered = String::from_utf8(out.stdout).unwrap();
        assert!(
            offered.lines().any(|l| l.starts_with("--format")),
            "{offered}"
        );
        let asked = format!("source '{}'; complete -C 'gate ma'", script.display());
        let out = Command::new("fish").args(["-c", &asked]).output().unwrap();
        let offered = String::from_utf8(out.stdout).unwrap();
        let names: Vec<&str> = offered
            .lines()
            .map(|l| l.split('\t').next().unwrap())
            .collect();
        assert_eq!(names, ["man", "may-touch"], "{offered}");
    }
    if have("zsh", test) {
        let script = script(&repo, "zsh");
        let text = std::fs::read_to_string(&script).unwrap();
        assert!(text.starts_with("#compdef gate"), "{text}");
        let out = Command::new("zsh").arg("-n").arg(&script).output().unwrap();
        assert!(out.status.success(), "zsh -n: {out:?}");
    }
    let script = script(&repo, "powershell");
    let text = std::fs::read_to_string(script).unwrap();
    assert!(
        text.contains("Register-ArgumentCompleter -Native -CommandName 'gate'"),
        "{text}"
    );
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let repo = TestRepo::new();
    let out = repo.gate().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("possible values: bash, elvish, fish, powershell, zsh"),
        "{said}"
    );
}

/// `gate man` prints gate(1); `--out DIR` writes it and a page for every
/// command `--help` knows, each of which groff renders without a warning (as man(1) does).
#[test]
fn a_manual_page_for_every_command() {
    let repo = TestRepo::new();
    let printed = repo.gate().arg("man").output().unwrap();
    assert_eq!(printed.status.code(), Some(0), "{printed:?}");
    let dir = repo.scratch("man");
    let out = repo
        .gate()
        .args(["man", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let gate_1 = std::fs::read(dir.join("gate.1")).unwrap();
    assert_eq!(gate_1, printed.stdout, "the printed page is gate.1");
    for verb in crate::help::VERBS {
        let name = std::iter::once("gate")
            .chain(verb.iter().copied())
            .collect::<Vec<_>>()
            .join("-");
        let page = dir.join(format!("{name}.1"));
        let text =
            std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        assert!(text.contains(&format!(".TH {name} 1")), "{name}: {text}");
    }
    let written: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    let said = String::from_utf8(out.stdout).unwrap();
    assert_eq!(said.lines().count(), written.len(), "{said}");
    assert!(said.lines().all(|l| l.starts_with("wrote ")), "{said}");
    if !have("groff", crate::this_test!()) {
        return;
    }
    for entry in written {
        let page = entry.unwrap().path();
        let out = Command::new("groff")
            // -k: through preconv, as man(1) renders a page that is not
            // ASCII.
            .args(["-k", "-man", "-Tutf8", "-ww", "-z"])
            .arg(&page)
            .output()
            .unwrap();
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "{}: {}",
            page.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
