//! README.md's "Adopt it in five minutes", run verbatim: the commands are
//! read from the README's marked block (never copied here), and run with
//! `sh` in a fresh clone with a bare `origin`, `gate` on PATH, under the
//! embedded default policy and under one with every check `required`.
//! Every command must succeed, and nothing may skip a hook.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{check, git_command, git_env, marked_block};

const BEGIN: &str = "<!-- readme-flow: begin -->";
const END: &str = "<!-- readme-flow: end -->";

/// Every check `required`, the binding too.
const ALL_REQUIRED: &str = "version: 1\nbinding: required\nexemptions: []\nscope: required\nprovenance:\n  mode: required\n  merges: refuse\nreceipts:\n  mode: required\n  signers: .gate/allowed_signers\nbrief:\n  mode: required\n";

/// The shell commands of README.md's marked block, without its fences.
fn readme_flow() -> String {
    let (readme, range) = marked_block("README.md", BEGIN, END);
    let block = readme[range].trim();
    let body = block
        .strip_prefix("```sh\n")
        .and_then(|b| b.strip_suffix("```"))
        .expect("the marked block is one ```sh code block");
    body.to_string()
}

fn git(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = git_command(dir);
    cmd.args(args);
    let out = cmd.output().expect("run git");
    check(&cmd, out)
}

fn git_text(dir: &Path, args: &[&str]) -> String {
    String::from_utf8_lossy(&git(dir, args).stdout)
        .trim()
        .to_string()
}

/// A bare `origin` with one commit on `main`, and `your-repo`, a clone of
/// it with `user.name` set, beside it in `base`; `policy`, when given, is
/// written as `.gate/policy.yaml` (not committed: the flow commits it).
fn scenery(base: &Path, policy: Option<&str>) -> PathBuf {
    let origin = base.join("origin.git");
    let repo = base.join("your-repo");
    std::fs::create_dir_all(&origin).unwrap();
    std::fs::create_dir_all(&repo).unwrap();
    git(&origin, &["init", "-q", "--bare", "-b", "main"]);
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["config", "user.name", "Ada"]);
    git(&repo, &["config", "user.email", "ada@example.com"]);
    std::fs::write(repo.join("README.md"), "# a project\n").unwrap();
    git(&repo, &["add", "README.md"]);
    git(&repo, &["commit", "-q", "-m", "initial"]);
    git(&repo, &["remote", "add", "origin", "../origin.git"]);
    git(&repo, &["push", "-q", "-u", "origin", "main"]);
    if let Some(policy) = policy {
        std::fs::create_dir_all(repo.join(".gate")).unwrap();
        std::fs::write(repo.join(".gate/policy.yaml"), policy).unwrap();
    }
    repo
}

/// Run the README's flow in `base` with `sh -e`, `gate` (this build) first
/// on PATH and `$EDITOR` a step that writes the plan as the user saves it.
fn run_flow(base: &Path) -> Output {
    let flow = readme_flow();
    std::fs::write(base.join("flow.sh"), &flow).unwrap();
    // The editor the README opens: it writes the plan back, as someone who
    // read the example and kept it would.
    let editor = base.join("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nset -e\nplan=$(cat \"$1\")\nprintf '%s\\n# reviewed: the example is our plan\\n' \"$plan\" > \"$1\"\n",
    )
    .unwrap();
    let gate = PathBuf::from(assert_cmd::cargo::cargo_bin!("gate"));
    let bin = gate.parent().expect("the binary's directory");
    let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let home = base.join("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    // The user's SSH key, which the flow signs receipts with.
    let keygen = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "ada", "-f"])
        .arg(home.join(".ssh/id_ed25519"))
        .output()
        .expect("ssh-keygen runs (apt-get install openssh-client)");
    assert!(keygen.status.success(), "{}", show(&keygen));
    let mut sh = Command::new("sh");
    sh.current_dir(base)
        .env_clear()
        .envs(git_env())
        .env("PATH", path)
        .env("HOME", &home)
        .env("EDITOR", format!("sh {}", editor.display()))
        .args(["-e", "-x", "flow.sh"]);
    sh.output().expect("run sh")
}

fn show(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The flow ran to its end, every command succeeding, and left what it
/// says: the setup on origin's main, the work with its task's file on
/// origin's new branch, CI's range non-empty and passing.
fn assert_flow_worked(base: &Path, repo: &Path, out: &Output) {
    assert_eq!(out.status.code(), Some(0), "{}", show(out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("gate: error"), "{}", show(out));
    // The last command ran (`sh -e` stops at the first failing one).
    assert!(stderr.contains("+ gate handover"), "{}", show(out));
    let origin = base.join("origin.git");
    let main_files = git_text(&origin, &["ls-tree", "-r", "--name-only", "main"]);
    assert!(main_files.contains(".gate/policy.yaml"), "{main_files}");
    assert!(main_files.contains(".gate/plan.yaml"), "{main_files}");
    let branch_files = git_text(&origin, &["ls-tree", "-r", "--name-only", "csv-export"]);
    // The task's file: a default id, `T-17-` and 5 fresh characters.
    let task_file = branch_files
        .lines()
        .find(|f| {
            f.starts_with(".gate/tasks/T-17-") && f.len() == ".gate/tasks/T-17-".len() + 5 + 3
        })
        .unwrap_or_else(|| panic!("no task file of issue 17: {branch_files}"));
    assert!(
        branch_files.contains("src/export/columns.csv"),
        "{branch_files}"
    );
    // No brief file was written into the work tree, nor committed.
    assert!(!branch_files.contains("brief"), "{branch_files}");
    // The task's amendment travelled with the work.
    let task = git_text(&origin, &["show", &format!("csv-export:{task_file}")]);
    assert!(task.contains("Also the totals row."), "{task}");
    // CI's range, after the push, holds the work's commits.
    let base_commit = git_text(repo, &["merge-base", "origin/main", "HEAD"]);
    let count = git_text(
        repo,
        &["rev-list", "--count", &format!("{base_commit}..HEAD")],
    );
    assert_eq!(count, "2", "CI's range holds the two commits of the work");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("\"summary\": \"2 commits in"),
        "CI's check proved the range: {}",
        show(out)
    );
    // The receipt CI proved it by was signed with the user's key, which
    // `gate init` listed in the signers file that landed on main.
    assert!(
        stdout.contains("export-tests by a receipt signed by ada@example.com (ED25519 SHA256:"),
        "{}",
        show(out)
    );
    let signers = git_text(&origin, &["show", "main:.gate/allowed_signers"]);
    assert!(
        signers.starts_with("ada@example.com ssh-ed25519 "),
        "{signers}"
    );
}

#[test]
fn the_readme_flow_calls_no_hook_skipping() {
    let flow = readme_flow();
    assert!(flow.contains("gate start"), "{flow}");
    assert!(!flow.contains("--no-verify"), "{flow}");
}

/// The flow in a fresh clone, checked by [`assert_flow_worked`], with
/// `policy` (else none: `gate init` writes the default); returns its output
/// and the policy origin's main holds after it.
fn flow_in_a_fresh_clone(policy: Option<&str>) -> (Output, String) {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let repo = scenery(&base, policy);
    let out = run_flow(&base);
    assert_flow_worked(&base, &repo, &out);
    let committed = git_text(
        &base.join("origin.git"),
        &["show", "main:.gate/policy.yaml"],
    );
    (out, committed)
}

#[test]
fn the_readme_flow_works_under_the_default_policy() {
    let (_, committed) = flow_in_a_fresh_clone(None);
    // `gate init` wrote the embedded default, under the line naming its
    // schema (docs/schema.md), and that is what was committed.
    // With a signing key configured, the signers file is named.
    let written =
        gate::schema::modeline(gate::schema::Document::Policy) + gate::policy::DEFAULT_POLICY_YAML;
    let written = written.replace(
        "  # signers: .gate/allowed_signers\n",
        "  signers: .gate/allowed_signers\n",
    );
    assert_ne!(written, gate::policy::DEFAULT_POLICY_YAML);
    assert_eq!(committed, written.trim());
}

#[test]
fn the_readme_flow_works_with_every_check_required() {
    let (out, committed) = flow_in_a_fresh_clone(Some(ALL_REQUIRED));
    assert_eq!(committed, ALL_REQUIRED.trim());
    // Each gate verb judged under `required` and passed.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("binding     pass"), "{}", show(&out));
    assert!(stdout.contains("result: pass (exit 0)"), "{}", show(&out));
}

/// Run the README's first command, `./install.sh`, with `args`, `PATH`
/// holding `tools` and the system's directories only, and `HOME` at
/// `home` (so no cargo of this machine is found).
fn install_sh(tools: &Path, home: &Path, extra_path: Option<&Path>, args: &[&str]) -> Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("install.sh");
    let path = std::env::join_paths(extra_path.into_iter().map(Path::to_path_buf).chain([
        tools.to_path_buf(),
        "/usr/bin".into(),
        "/bin".into(),
    ]))
    .unwrap();
    Command::new("sh")
        .arg(script)
        .args(args)
        .env_clear()
        .env("PATH", path)
        .env("HOME", home)
        .output()
        .expect("run install.sh")
}

/// `./install.sh` as far as a test can run it without a release build of
/// many minutes: a stand-in `cargo` on PATH puts a stand-in `gate` where
/// `cargo install --root DIR` puts it, and every step of install.sh's own
/// runs for real. It ends saying what it installed (path, version) and
/// what to do next — never a check of gate's own checkout, where no task
/// is active and a newcomer would meet refusals.
#[test]
fn install_sh_says_what_it_installed_and_what_to_do_next() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let (tools, home, prefix) = (base.join("tools"), base.join("home"), base.join("prefix"));
    std::fs::create_dir_all(&tools).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let cargo = tools.join("cargo");
    std::fs::write(
        &cargo,
        "#!/bin/sh\n\
         # cargo install --locked --path . [--target T] --root DIR\n\
         root=\n\
         while [ $# -gt 0 ]; do case $1 in --root) root=$2; shift 2 ;; *) shift ;; esac; done\n\
         mkdir -p \"$root/bin\"\n\
         printf '#!/bin/sh\\necho \"gate 0.1.0\"\\n' > \"$root/bin/gate\"\n\
         chmod +x \"$root/bin/gate\"\n\
         pwd > \"$root/built-in\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();

    let prefix_arg = prefix.to_str().unwrap();
    let out = install_sh(&tools, &home, None, &["--prefix", prefix_arg]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let bin = prefix.join("bin/gate");
    assert!(
        stdout.contains(&format!("installed: {} (gate 0.1.0)\n", bin.display())),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "note: {} is not on PATH; add it, or call gate by its full path\n",
            prefix.join("bin").display()
        )),
        "{stdout}"
    );
    for next in [
        "next, in the repository gate is to govern",
        "  gate init ",
        "  gate install ",
        "| gate start --issue N --brief -\n",
    ] {
        assert!(stdout.contains(next), "{next}\n{stdout}");
    }
    // Nothing of this checkout was judged.
    let all = show(&out);
    assert!(
        !all.contains("refused") && !all.contains("gate check") && !all.contains("no_active_task"),
        "{all}"
    );
    assert_eq!(
        std::fs::read_to_string(prefix.join("built-in"))
            .unwrap()
            .trim(),
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .canonicalize()
            .unwrap()
            .to_str()
            .unwrap()
    );
    // With its directory on PATH, no note.
    let out = install_sh(
        &tools,
        &home,
        Some(&prefix.join("bin")),
        &["--prefix", prefix_arg],
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("note:"),
        "{}",
        show(&out)
    );

    // Without cargo it says how to get it, and installs nothing.
    std::fs::remove_file(&cargo).unwrap();
    let out = install_sh(
        &tools,
        &home,
        None,
        &["--prefix", base.join("p2").to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("https://rustup.rs"),
        "{}",
        show(&out)
    );
    // --help is the script's own header, and only that.
    let out = install_sh(&tools, &home, None, &["--help"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.starts_with("Install gate, then say what was installed"),
        "{help}"
    );
    assert!(help.contains("./install.sh --binary FILE"), "{help}");
    assert!(help.contains("./install.sh --prefix DIR"), "{help}");
    assert!(!help.contains("set -eu"), "{help}");
}

/// Which builds `./install.sh` asks of cargo, by the RUSTFLAGS of each
/// call, with a stand-in `rustc` saying `host` and `release` and a
/// stand-in `cargo` that fails the calls whose flags contain `fail_on`.
fn install_builds(host: &str, release: &str, fail_on: Option<&str>) -> (Output, Vec<String>) {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let (tools, home, prefix) = (base.join("tools"), base.join("home"), base.join("prefix"));
    std::fs::create_dir_all(&tools).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let log = base.join("builds");
    let stand_ins = [
        (
            "rustc",
            format!(
                "#!/bin/sh\nprintf 'rustc {release} (0 2026-01-01)\\nbinary: rustc\\nhost: {host}\\nrelease: {release}\\n'\n"
            ),
        ),
        (
            "cargo",
            format!(
                "#!/bin/sh\n\
                 printf '%s\\n' \"$RUSTFLAGS\" >> '{log}'\n\
                 {fail}\
                 root=\n\
                 while [ $# -gt 0 ]; do case $1 in --root) root=$2; shift 2 ;; *) shift ;; esac; done\n\
                 mkdir -p \"$root/bin\"\n\
                 printf '#!/bin/sh\\necho \"gate 0.1.0\"\\n' > \"$root/bin/gate\"\n\
                 chmod +x \"$root/bin/gate\"\n",
                log = log.display(),
                fail = fail_on.map_or(String::new(), |flag| format!(
                    "case \"$RUSTFLAGS\" in *'{flag}'*) exit 101 ;; esac\n"
                )),
            ),
        ),
    ];
    use std::os::unix::fs::PermissionsExt as _;
    for (name, text) in stand_ins {
        std::fs::write(tools.join(name), text).unwrap();
        std::fs::set_permissions(tools.join(name), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let out = install_sh(&tools, &home, None, &["--prefix", prefix.to_str().unwrap()]);
    let builds = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().to_string())
        .collect();
    (out, builds)
}

/// On Linux x86_64, where Rust links with its own lld (1.90 on), the
/// build lays the hooks' functions out first (`link/hot-text.ld`,
/// decision 0033) in the static binary; where that build fails the next
/// is static without it, then dynamic; elsewhere the layout is not tried.
#[test]
fn install_sh_lays_the_hooks_functions_first_where_rust_links_with_lld() {
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .unwrap();
    let script = checkout.join("link/hot-text.ld");
    assert!(script.is_file(), "{} is missing", script.display());
    let hot = format!("-C link-arg=-Wl,-T,{}", script.display());
    let fixed = "-C target-feature=+crt-static -C relocation-model=static";

    let (out, builds) = install_builds("x86_64-unknown-linux-gnu", "1.95.0", None);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(builds, [format!("{fixed} {hot}")], "{}", show(&out));

    // The layout's build fails: static without it; that fails too: dynamic.
    let (out, builds) = install_builds("x86_64-unknown-linux-gnu", "1.95.0", Some("hot-text"));
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(builds, [format!("{fixed} {hot}"), fixed.to_string()]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("building without that layout"),
        "{}",
        show(&out)
    );
    let (out, builds) = install_builds("x86_64-unknown-linux-gnu", "1.95.0", Some("crt-static"));
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(
        builds,
        [format!("{fixed} {hot}"), fixed.to_string(), String::new()]
    );

    // Before 1.90 Rust links with the system's linker; other systems too.
    for (host, release) in [
        ("x86_64-unknown-linux-gnu", "1.89.0"),
        ("aarch64-unknown-linux-gnu", "1.95.0"),
    ] {
        let (out, builds) = install_builds(host, release, None);
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        assert_eq!(builds, [fixed.to_string()], "{host} {release}");
    }
    let (out, builds) = install_builds("x86_64-apple-darwin", "1.95.0", None);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(builds, [String::new()]);
}
