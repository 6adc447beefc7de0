//! gate beside the hook managers teams already run — husky 9, lefthook, the
//! pre-commit framework and prek — driven by the real tools: gate installs
//! the way each expects (or refuses with the lines to add, and those lines
//! work), never moves a tool's own scripts, and a commit afterwards is
//! judged by gate. Also: a `core.hooksPath` outside the repository needs
//! `--global`, and `--force` repairs a chain another tool broke.
//!
//! The tools are probed before any repository is built. One that is not
//! installed makes its tests say so on the terminal (`skipped: …`) and
//! pass, unless `GATE_REQUIRE_HOOK_MANAGERS` is set, as `.ci/run` (which
//! installs the pinned versions) does: there they fail.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::fixture::{plan_repo, show, start_42};
use crate::support::{self, TestRepo};

/// Where tool `name` is, probed once per test before anything is built;
/// `None` (the test then stops, passing) when it is missing and
/// `GATE_REQUIRE_HOOK_MANAGERS` is unset.
fn tool(name: &str, test: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file());
    if found.is_none() {
        support::skip(
            test,
            &format!("{name} is not on PATH; install it (see .ci/run) to run it"),
            Some("GATE_REQUIRE_HOOK_MANAGERS"),
        );
    }
    found
}

/// PATH with the gate under test first: the managers' lines run `gate`.
fn path_with_gate() -> OsString {
    let bin = assert_cmd::cargo::cargo_bin!("gate");
    let mut dirs = vec![bin.parent().unwrap().to_path_buf()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).unwrap()
}

/// A command in the repository with the isolated git environment, gate on
/// PATH, and the managers' caches in the test's scratch.
fn command(repo: &TestRepo, program: &Path, args: &[&str]) -> Command {
    let mut cmd = support::git_command(repo.path());
    // git_command's environment, for another program.
    let git = std::mem::replace(&mut cmd, Command::new(program));
    cmd.current_dir(repo.path());
    for (k, v) in git.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    cmd.args(args)
        .env("PATH", path_with_gate())
        .env("PRE_COMMIT_HOME", repo.scratch("pre-commit-home"))
        .env("PREK_HOME", repo.scratch("prek-home"))
        .env("NO_COLOR", "1");
    cmd
}

fn make_exec(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn run(repo: &TestRepo, program: &Path, args: &[&str]) -> Output {
    command(repo, program, args).output().expect("run")
}

fn run_ok(repo: &TestRepo, program: &Path, args: &[&str]) -> Output {
    let out = run(repo, program, args);
    assert!(out.status.success(), "{program:?} {args:?}: {}", show(&out));
    out
}

fn git(repo: &TestRepo, args: &[&str]) -> Output {
    run(repo, Path::new("git"), args)
}

fn gate_install(repo: &TestRepo, args: &[&str]) -> Output {
    let mut cmd = repo.gate();
    cmd.arg("install").args(args).env("PATH", path_with_gate());
    cmd.output().unwrap()
}

fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A commit out of task 42's scope is refused by gate's pre-commit, and one
/// in scope goes through with the task's trailer: gate ran, both hooks.
fn assert_gate_judges_commits(repo: &TestRepo) {
    repo.write("src/lib.rs", "// out of scope\n");
    let out = git(repo, &["commit", "-qam", "out of scope"]);
    assert!(!out.status.success(), "{}", show(&out));
    assert!(said(&out).contains("path_outside_scope"), "{}", show(&out));
    let out = git(repo, &["checkout", "-q", "--", "src/lib.rs"]);
    assert!(out.status.success(), "{}", show(&out));
    // New content each time: HEAD's id is.
    repo.write(
        "src/export/mod.rs",
        format!("// export, after {}\n", repo.head()),
    );
    let out = git(repo, &["commit", "-qam", "in scope"]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        repo.git(&["log", "-1", "--format=%B"])
            .contains("Task: T-42"),
        "{}",
        repo.git(&["log", "-1", "--format=%B"])
    );
}

/// Commit the manager's configuration `file` (its hooks left out: gate
/// is what they would judge), then check that the manager's hooks run gate
/// on commits.
fn commit_config_and_judge(repo: &TestRepo, file: &str, message: &str) {
    repo.git(&["add", file]);
    let out = git(
        repo,
        &[
            "commit",
            "-q",
            "--no-verify",
            "-m",
            &format!("{message}\n\nTask: T-42"),
        ],
    );
    assert!(out.status.success(), "{file}: {}", show(&out));
    assert_gate_judges_commits(repo);
}

/// A push of main to a new remote reaches gate's pre-push with git's refs:
/// gate proves the commits it sends.
fn assert_push_is_proved(repo: &TestRepo) {
    let remote = TestRepo::bare();
    let out = git(repo, &["push", remote.path().to_str().unwrap(), "main"]);
    assert!(
        said(&out).contains("gate hook pre-push") && said(&out).contains("commits in main"),
        "{}",
        show(&out)
    );
}

/// A repository with task 42 started, a pre-commit configuration, and the
/// framework's scripts installed for `hook_types`.
fn framework_repo(framework: &Path, hook_types: [&str; 2]) -> TestRepo {
    let repo = plan_repo("required");
    start_42(&repo);
    repo.write(".pre-commit-config.yaml", format!("repos:\n{NOOP}"));
    let [a, b] = hook_types;
    run_ok(
        &repo,
        framework,
        &["install", "--hook-type", a, "--hook-type", b],
    );
    repo
}

/// A repository with task 42 started and husky installed (`husky`, as its
/// package's `prepare` script runs it), and where husky is.
fn husky_repo(test: &str) -> Option<(TestRepo, PathBuf)> {
    let husky = tool("husky", test)?;
    let repo = plan_repo("required");
    start_42(&repo);
    run_ok(&repo, &husky, &[]);
    Some((repo, husky))
}

/// The text between a refusal's blank lines: the snippet it asks for.
fn snippet(out: &Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.split("\n\n").nth(1).expect("a snippet").to_string() + "\n"
}

#[test]
fn husky_gets_a_line_in_each_hook_script_and_runs_gate() {
    let Some((repo, husky)) = husky_repo("husky_gets_a_line_in_each_hook_script_and_runs_gate")
    else {
        return;
    };
    assert_eq!(repo.git(&["config", "core.hooksPath"]).trim(), ".husky/_");
    let stub = std::fs::read(repo.path().join(".husky/_/pre-commit")).unwrap();
    let out = gate_install(&repo, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    for name in [
        "pre-commit",
        "prepare-commit-msg",
        "pre-push",
        "post-checkout",
    ] {
        let script = std::fs::read_to_string(repo.path().join(".husky").join(name)).unwrap();
        assert!(
            script.contains(&format!("gate hook {name}")),
            "{name}: {script}"
        );
        assert!(
            !repo
                .path()
                .join(format!(".husky/_/{name}.gate-chained"))
                .exists()
        );
    }
    // husky's stubs are husky's.
    assert_eq!(
        std::fs::read(repo.path().join(".husky/_/pre-commit")).unwrap(),
        stub
    );
    // `npm install` runs husky again: gate's lines stay.
    run_ok(&repo, &husky, &[]);
    assert_gate_judges_commits(&repo);
    // husky hands pre-push git's refs on stdin.
    assert_push_is_proved(&repo);
    // Twice changes nothing.
    let out = gate_install(&repo, &[]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .matches("already there")
            .count(),
        4,
        "{}",
        show(&out)
    );
    let out = repo.gate().arg("uninstall").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(!repo.path().join(".husky/pre-commit").exists());
}

#[test]
fn husky_stubs_an_older_gate_install_replaced_are_restored() {
    let Some((repo, _)) = husky_repo("husky_stubs_an_older_gate_install_replaced_are_restored")
    else {
        return;
    };
    // What gate did before it knew husky: its own script in husky's place.
    let stub_path = repo.path().join(".husky/_/pre-commit");
    let stub = std::fs::read(&stub_path).unwrap();
    std::fs::rename(
        &stub_path,
        repo.path().join(".husky/_/pre-commit.gate-chained"),
    )
    .unwrap();
    let script =
        gate::commands::install::render_hook(gate::commands::install::HOOKS[0].1, "/nowhere/gate");
    std::fs::write(&stub_path, script).unwrap();
    let out = gate_install(&repo, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        said(&out).contains("husky's pre-commit stub is restored"),
        "{}",
        show(&out)
    );
    assert_eq!(std::fs::read(&stub_path).unwrap(), stub);
    assert!(
        !repo
            .path()
            .join(".husky/_/pre-commit.gate-chained")
            .exists()
    );
    assert_gate_judges_commits(&repo);
}

/// A configuration's own hook (prek refuses to run a configuration with none).
const NOOP: &str = "  - repo: local\n    hooks:\n      - id: noop\n        name: noop\n        entry: \"true\"\n        language: system\n        pass_filenames: false\n        always_run: true\n";

/// `pre-commit install` (or prek's) after `gate install` keeps gate's hook as
/// `<hook>.legacy`, which the tool runs first: commits still work and are
/// still judged; `gate install` again recognises it.
fn framework_after_gate(tool_name: &str, test: &str) {
    let Some(framework) = tool(tool_name, test) else {
        return;
    };
    let repo = plan_repo("required");
    start_42(&repo);
    let out = gate_install(&repo, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    repo.write(".pre-commit-config.yaml", format!("repos:\n{NOOP}"));
    repo.git(&["add", ".pre-commit-config.yaml"]);
    run_ok(&repo, &framework, &["install"]);
    assert!(
        gate::commands::install::is_gate_hook(
            &std::fs::read(repo.path().join(".git/hooks/pre-commit.legacy")).unwrap()
        ),
        "gate's hook is the legacy one"
    );
    repo.git(&["reset", "-q"]);
    assert_gate_judges_commits(&repo);
    let out = gate_install(&repo, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        said(&out).contains(&format!(
            "pre-commit: already installed as pre-commit.legacy, which {tool_name} runs first"
        )),
        "{}",
        show(&out)
    );
    assert_gate_judges_commits(&repo);
}

/// `gate install` after the tool's install refuses, writing nothing, with a
/// `.pre-commit-config.yaml` entry; with that entry added it installs, and
/// the tool runs gate.
fn gate_after_framework(tool_name: &str, test: &str) {
    let Some(framework) = tool(tool_name, test) else {
        return;
    };
    let repo = framework_repo(&framework, ["pre-commit", "prepare-commit-msg"]);
    let hooks = repo.path().join(".git/hooks");
    let before = std::fs::read(hooks.join("pre-commit")).unwrap();
    let out = gate_install(&repo, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_eq!(std::fs::read(hooks.join("pre-commit")).unwrap(), before);
    assert!(!hooks.join("pre-push").exists(), "nothing is written");
    repo.write(
        ".pre-commit-config.yaml",
        format!("repos:\n{}", snippet(&out)),
    );
    let out = gate_install(&repo, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        said(&out).contains(&format!("pre-commit: run by {tool_name}")),
        "{}",
        show(&out)
    );
    assert!(
        said(&out).contains(&format!("prepare-commit-msg: run by {tool_name}")),
        "{}",
        show(&out)
    );
    assert_eq!(std::fs::read(hooks.join("pre-commit")).unwrap(), before);
    commit_config_and_judge(&repo, ".pre-commit-config.yaml", "config");
}

#[test]
fn pre_commit_install_after_gate_install_keeps_commits_judged() {
    framework_after_gate(
        "pre-commit",
        "pre_commit_install_after_gate_install_keeps_commits_judged",
    );
}

#[test]
fn prek_install_after_gate_install_keeps_commits_judged() {
    framework_after_gate(
        "prek",
        "prek_install_after_gate_install_keeps_commits_judged",
    );
}

#[test]
fn gate_install_after_pre_commit_asks_for_a_config_entry_that_works() {
    gate_after_framework(
        "pre-commit",
        "gate_install_after_pre_commit_asks_for_a_config_entry_that_works",
    );
}

#[test]
fn gate_install_after_prek_asks_for_a_config_entry_that_works() {
    gate_after_framework(
        "prek",
        "gate_install_after_prek_asks_for_a_config_entry_that_works",
    );
}

#[test]
fn the_shipped_hooks_manifest_is_valid_for_pre_commit_and_prek() {
    let test = "the_shipped_hooks_manifest_is_valid_for_pre_commit_and_prek";
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    for name in gate::commands::install::FRAMEWORK_HOOKS {
        assert!(
            text.contains(&format!("entry: gate hook {name}\n")),
            "{name}"
        );
    }
    for name in ["pre-commit", "prek"] {
        let Some(program) = tool(name, test) else {
            continue;
        };
        let repo = TestRepo::new();
        run_ok(
            &repo,
            &program,
            &["validate-manifest", manifest.to_str().unwrap()],
        );
    }
}

#[test]
fn lefthook_gets_the_commands_to_add_and_runs_gate_with_them() {
    let Some(lefthook) = tool(
        "lefthook",
        "lefthook_gets_the_commands_to_add_and_runs_gate_with_them",
    ) else {
        return;
    };
    let repo = plan_repo("required");
    start_42(&repo);
    repo.write(
        "lefthook.yml",
        "pre-commit:\n  commands:\n    lint:\n      run: \"true\"\n",
    );
    repo.git(&["add", "lefthook.yml"]);
    repo.git(&[
        "commit",
        "-q",
        "--no-verify",
        "-m",
        "lefthook\n\nTask: T-42",
    ]);
    run_ok(&repo, &lefthook, &["install"]);
    let hooks = repo.path().join(".git/hooks");
    let before = std::fs::read(hooks.join("pre-commit")).unwrap();
    let out = gate_install(&repo, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert_eq!(std::fs::read(hooks.join("pre-commit")).unwrap(), before);
    repo.write("lefthook-local.yml", snippet(&out));
    run_ok(&repo, &lefthook, &["install"]);
    let out = gate_install(&repo, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .matches("run by lefthook")
            .count(),
        4,
        "{}",
        show(&out)
    );
    assert_gate_judges_commits(&repo);
    // `use_stdin: true` hands pre-push git's refs.
    assert_push_is_proved(&repo);
}

#[test]
fn a_hooks_path_outside_the_repository_needs_global() {
    let repo = plan_repo("required");
    let shared = repo.scratch("shared-hooks");
    repo.git(&["config", "core.hooksPath", shared.to_str().unwrap()]);
    let out = gate_install(&repo, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(said(&out).contains("--global"), "{}", show(&out));
    assert!(!shared.exists(), "nothing is written");
    let out = gate_install(&repo, &["--global"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(shared.join("pre-commit").exists());
    // Another repository sharing the directory, without .gate/: silent.
    let other = TestRepo::new();
    other.git(&["config", "core.hooksPath", shared.to_str().unwrap()]);
    other.write("a", "a\n");
    let out = git(&other, &["add", "a"]);
    assert!(out.status.success());
    let out = git(&other, &["commit", "-qm", "a"]);
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(said(&out), "");
}

#[test]
fn force_repairs_a_hook_another_tool_wrote_over_gate_s() {
    let repo = plan_repo("required");
    start_42(&repo);
    let hooks = repo.path().join(".git/hooks");
    std::fs::write(
        hooks.join("pre-commit"),
        "#!/bin/sh\necho first >>\"$0.log\"\n",
    )
    .unwrap();
    make_exec(&hooks.join("pre-commit"));
    let out = gate_install(&repo, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    // Another tool writes its hook over gate's.
    std::fs::write(hooks.join("pre-commit"), "#!/bin/sh\necho tool >&2\n").unwrap();
    make_exec(&hooks.join("pre-commit"));
    let out = gate_install(&repo, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        said(&out).contains("gate install --force"),
        "{}",
        show(&out)
    );
    let out = gate_install(&repo, &["--force"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        said(&out).contains("pre-commit.gate-chained.old and no longer runs"),
        "{}",
        show(&out)
    );
    assert_eq!(
        std::fs::read_to_string(hooks.join("pre-commit.gate-chained")).unwrap(),
        "#!/bin/sh\necho tool >&2\n"
    );
    assert!(hooks.join("pre-commit.gate-chained.old").exists());
    assert_gate_judges_commits(&repo);
}

#[test]
fn a_missing_gate_is_silent_in_a_repository_without_gate_files() {
    let repo = plan_repo("required");
    let shared = repo.scratch("shared-hooks");
    let copy = repo.scratch("gate-copy");
    std::fs::copy(assert_cmd::cargo::cargo_bin!("gate"), &copy).unwrap();
    repo.git(&["config", "core.hooksPath", shared.to_str().unwrap()]);
    let out = repo
        .gate()
        .args(["install", "--global", "--binary", copy.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    std::fs::remove_file(&copy).unwrap();
    // PATH without any gate: the recorded one is gone too.
    let path: Vec<PathBuf> = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .filter(|d| !d.join("gate").exists())
        .collect();
    let path = std::env::join_paths(path).unwrap();
    let other = TestRepo::new();
    other.git(&["config", "core.hooksPath", shared.to_str().unwrap()]);
    other.write("a", "a\n");
    other.git(&["add", "a"]);
    for args in [
        &["commit", "-qm", "a"][..],
        &["checkout", "-q", "-b", "side"][..],
    ] {
        let out = support::git_command(other.path())
            .args(args)
            .env("PATH", &path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", show(&out));
        assert_eq!(said(&out), "", "{args:?}");
    }
    // Where gate governs, the same hooks still refuse the commit.
    repo.write("src/lib.rs", "// changed\n");
    let out = support::git_command(repo.path())
        .args(["commit", "-qam", "x"])
        .env("PATH", &path)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{}", show(&out));
    assert!(
        said(&out).contains("the gate binary is missing"),
        "{}",
        show(&out)
    );
}

#[test]
fn force_puts_gate_in_the_legacy_slots_pre_commit_runs_first() {
    let test = "force_puts_gate_in_the_legacy_slots_pre_commit_runs_first";
    let Some(framework) = tool("pre-commit", test) else {
        return;
    };
    let repo = framework_repo(&framework, ["pre-commit", "pre-push"]);
    let hooks = repo.path().join(".git/hooks");
    // Without --force: the config entry is asked for, and nothing is written.
    let out = gate_install(&repo, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(!hooks.join("pre-push.legacy").exists());
    let out = gate_install(&repo, &["--force"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    for name in ["pre-commit", "pre-push"] {
        assert!(
            said(&out).contains(&format!(
                "{name}: installed as {name}.legacy, which pre-commit runs first"
            )),
            "{}",
            show(&out)
        );
        let legacy = std::fs::read(hooks.join(format!("{name}.legacy"))).unwrap();
        assert!(gate::commands::install::is_gate_hook(&legacy), "{name}");
        assert!(
            gate::commands::install::framework_script(&std::fs::read(hooks.join(name)).unwrap())
                .is_some()
        );
    }
    commit_config_and_judge(&repo, ".pre-commit-config.yaml", "config");
    // pre-commit hands its legacy pre-push git's refs.
    assert_push_is_proved(&repo);
    let doc = repo.gate().args(["doctor"]).output().unwrap();
    assert!(
        said(&doc)
            .contains("pre-commit runs pre-push.legacy first, gate's, executable, runs this gate"),
        "{}",
        show(&doc)
    );
}

/// Without `use_stdin: true` lefthook hands gate's pre-push a terminal or
/// an empty stdin instead of git's refs: `gate install` and `gate doctor`
/// say so, and the hook itself refuses a terminal instead of waiting on it.
#[test]
fn lefthook_s_pre_push_without_use_stdin_is_a_fault_not_a_hang() {
    let repo = plan_repo("required");
    let bare = |stdin: bool| {
        let mut text = [
            "pre-commit:\n  commands:\n    gate:\n      run: gate hook pre-commit\n",
            "prepare-commit-msg:\n  commands:\n    gate:\n      run: gate hook prepare-commit-msg {1} {2} {3}\n",
            "post-checkout:\n  commands:\n    gate:\n      run: gate hook post-checkout {1} {2} {3}\n",
            "pre-push:\n  commands:\n    gate:\n",
        ]
        .concat();
        if stdin {
            text.push_str("      use_stdin: true\n");
        }
        text.push_str("      run: gate hook pre-push {1} {2}\n");
        text
    };
    repo.write("lefthook-local.yml", bare(false));
    let out = gate_install(&repo, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        said(&out).contains("lacks `use_stdin: true`"),
        "{}",
        show(&out)
    );
    let out = repo.gate().args(["doctor", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(
        said(&out).contains("without `use_stdin: true`"),
        "{}",
        show(&out)
    );
    // Before the `run:` line or after it, the key counts.
    repo.write("lefthook-local.yml", bare(true));
    let out = gate_install(&repo, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));

    if Command::new("script").arg("--version").output().is_err() {
        support::skip(
            "the terminal half of coexist::lefthook_s_pre_push_without_use_stdin_is_a_fault_not_a_hang",
            "`script` (util-linux) is not installed, so no terminal can be made",
            None,
        );
        return;
    }
    let gate = assert_cmd::cargo::cargo_bin!("gate");
    let out = Command::new("script")
        .current_dir(repo.path())
        .envs(support::git_env())
        .args(["-q", "-e", "-c"])
        .arg(format!("{} hook pre-push origin /nowhere", gate.display()))
        .arg("/dev/null")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
    assert!(said(&out).contains("stdin is a terminal"), "{}", show(&out));
}

/// lefthook's configuration where lefthook reads it besides `lefthook.yml`
/// at the root — under `.config/`, and as JSON — is read there too: gate
/// asks for its commands, then installs once that file runs them (pre-push
/// with `use_stdin`, in the file's own format), and lefthook runs gate on
/// commit and push. Before, gate looked at the root's names only, so a
/// configuration it could not see refused every install.
#[test]
fn lefthook_is_read_from_config_dir_and_json() {
    let test = crate::this_test!();
    let Some(lefthook) = tool("lefthook", test) else {
        return;
    };
    let gate_json = r#"{
  "pre-commit": {"commands": {"lint": {"run": "true"}, "gate": {"run": "gate hook pre-commit"}}},
  "prepare-commit-msg": {"commands": {"gate": {"run": "gate hook prepare-commit-msg {1} {2} {3}"}}},
  "post-checkout": {"commands": {"gate": {"run": "gate hook post-checkout {1} {2} {3}"}}},
  "pre-push": {"commands": {"gate": {"run": "gate hook pre-push {1} {2}", "use_stdin": true}}}
}
"#;
    let gate_yaml = "pre-commit:\n  commands:\n    lint:\n      run: \"true\"\n    gate:\n      run: gate hook pre-commit\n\
        prepare-commit-msg:\n  commands:\n    gate:\n      run: gate hook prepare-commit-msg {1} {2} {3}\n\
        post-checkout:\n  commands:\n    gate:\n      run: gate hook post-checkout {1} {2} {3}\n\
        pre-push:\n  commands:\n    gate:\n      use_stdin: true\n      run: gate hook pre-push {1} {2}\n";
    for (file, before) in [
        (
            ".config/lefthook.yml",
            "pre-commit:\n  commands:\n    lint:\n      run: \"true\"\n".to_string(),
        ),
        (
            "lefthook.json",
            r#"{"pre-commit": {"commands": {"lint": {"run": "true"}}}}"#.to_string() + "\n",
        ),
    ] {
        let repo = plan_repo("required");
        start_42(&repo);
        repo.write(file, &before);
        repo.git(&["add", file]);
        repo.git(&[
            "commit",
            "-q",
            "--no-verify",
            "-m",
            "lefthook\n\nTask: T-42",
        ]);
        run_ok(&repo, &lefthook, &["install"]);
        let out = gate_install(&repo, &[]);
        assert_eq!(out.status.code(), Some(1), "{file}: {}", show(&out));
        // gate's commands, added to the file in its own format.
        let after = if file.ends_with(".json") {
            gate_json
        } else {
            gate_yaml
        };
        repo.write(file, after);
        // lefthook itself reads the file as gate does.
        let dump = run_ok(&repo, &lefthook, &["dump"]);
        assert!(
            String::from_utf8_lossy(&dump.stdout).contains("gate hook pre-push"),
            "{file}: {}",
            show(&dump)
        );
        run_ok(&repo, &lefthook, &["install"]);
        let out = gate_install(&repo, &[]);
        assert_eq!(out.status.code(), Some(0), "{file}: {}", show(&out));
        assert_eq!(
            said(&out).matches("run by lefthook").count(),
            4,
            "{file}: {}",
            show(&out)
        );
        let doctor = repo
            .gate()
            .arg("doctor")
            .env("PATH", path_with_gate())
            .output()
            .unwrap();
        assert_eq!(doctor.status.code(), Some(0), "{file}: {}", show(&doctor));
        commit_config_and_judge(&repo, file, "gate in lefthook");
        assert_push_is_proved(&repo);
    }
}

/// lefthook is asked how it reads its own configuration (`lefthook dump`):
/// gate's commands in a file the configuration `extends` — which gate's
/// own reading of lefthook's file names never sees — are found, install
/// goes ahead and doctor is healthy. Without lefthook on PATH, gate reads
/// the files itself, sees no gate there, and asks for its commands.
#[test]
fn lefthook_is_asked_for_its_merged_configuration() {
    let test = crate::this_test!();
    let Some(lefthook) = tool("lefthook", test) else {
        return;
    };
    let repo = plan_repo("required");
    start_42(&repo);
    repo.write(
        "lefthook.yml",
        "extends:\n  - hooks/gate-lefthook.yml\npre-commit:\n  commands:\n    lint:\n      run: \"true\"\n",
    );
    repo.write(
        "hooks/gate-lefthook.yml",
        "pre-commit:\n  commands:\n    gate:\n      run: gate hook pre-commit\n\
         prepare-commit-msg:\n  commands:\n    gate:\n      run: gate hook prepare-commit-msg {1} {2} {3}\n\
         post-checkout:\n  commands:\n    gate:\n      run: gate hook post-checkout {1} {2} {3}\n\
         pre-push:\n  commands:\n    gate:\n      use_stdin: true\n      run: gate hook pre-push {1} {2}\n",
    );
    run_ok(&repo, &lefthook, &["install"]);
    // Without lefthook to ask, the files alone say nothing of gate.
    let bin = assert_cmd::cargo::cargo_bin!("gate");
    let without = bin.parent().unwrap().as_os_str().to_owned();
    let mut cmd = repo.gate();
    cmd.arg("install").env("PATH", &without);
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(said(&out).contains("gate hook pre-push"), "{}", show(&out));
    // Asked, lefthook reads the file it extends.
    let out = gate_install(&repo, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(
        said(&out).matches("run by lefthook").count(),
        4,
        "{}",
        show(&out)
    );
    let doctor = repo
        .gate()
        .args(["doctor"])
        .env("PATH", path_with_gate())
        .output()
        .unwrap();
    assert_eq!(doctor.status.code(), Some(0), "{}", show(&doctor));
    assert!(
        said(&doctor).contains("as `lefthook dump` reads it"),
        "{}",
        show(&doctor)
    );
}

/// prek's own TOML configuration (`prek.toml`) is read as its YAML one:
/// gate asks for its hooks, and once `prek.toml` declares them (`id =
/// "gate-pre-commit"`), installs beside prek, which runs gate on commit.
#[test]
fn prek_toml_is_read_as_the_yaml_configuration() {
    let test = crate::this_test!();
    let Some(prek) = tool("prek", test) else {
        return;
    };
    let repo = plan_repo("required");
    start_42(&repo);
    let noop = "[[repos]]\nrepo = \"local\"\nhooks = [\n  { id = \"noop\", name = \"noop\", entry = \"true\", language = \"system\", pass_filenames = false, always_run = true },\n]\n";
    repo.write("prek.toml", noop);
    run_ok(
        &repo,
        &prek,
        &[
            "install",
            "--hook-type",
            "pre-commit",
            "--hook-type",
            "prepare-commit-msg",
        ],
    );
    let out = gate_install(&repo, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let hook = |name: &str, filenames: bool| {
        format!(
            "  {{ id = \"gate-{name}\", name = \"gate {name}\", entry = \"gate hook {name}\", language = \"system\", pass_filenames = {filenames}, always_run = true, stages = [\"{name}\"] }},\n"
        )
    };
    repo.write(
        "prek.toml",
        format!(
            "{noop}\n[[repos]]\nrepo = \"local\"\nhooks = [\n{}{}]\n",
            hook("pre-commit", false),
            hook("prepare-commit-msg", true)
        ),
    );
    let out = gate_install(&repo, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(
        said(&out).contains("pre-commit: run by prek"),
        "{}",
        show(&out)
    );
    commit_config_and_judge(&repo, "prek.toml", "prek");
}

/// The manifest's `-installed` hooks (`language: system`) run the gate on
/// PATH from a `repo:` entry that points at gate's repository: no build,
/// and `gate install` counts them as gate's hooks.
#[test]
fn a_repo_entry_runs_the_installed_gate_without_a_build() {
    let test = crate::this_test!();
    let source = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rev = support::git_command(source)
        .args(["rev-parse", "HEAD"])
        .output()
        .unwrap();
    if !rev.status.success() {
        support::skip(test, "gate's source is not a git checkout here", None);
        return;
    }
    let rev = String::from_utf8(rev.stdout).unwrap().trim().to_owned();
    let committed = support::git_command(source)
        .args(["show", &format!("{rev}:.pre-commit-hooks.yaml")])
        .output()
        .unwrap();
    if !String::from_utf8_lossy(&committed.stdout).contains("id: gate-pre-commit-installed") {
        support::skip(
            test,
            "HEAD's .pre-commit-hooks.yaml predates the -installed hooks (commit it first)",
            None,
        );
        return;
    }
    for name in ["pre-commit", "prek"] {
        let Some(framework) = tool(name, test) else {
            continue;
        };
        let repo = plan_repo("required");
        start_42(&repo);
        repo.write(
            ".pre-commit-config.yaml",
            format!(
                "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: gate-pre-commit-installed\n      - id: gate-prepare-commit-msg-installed\n",
                source.display()
            ),
        );
        run_ok(
            &repo,
            &framework,
            &[
                "install",
                "--hook-type",
                "pre-commit",
                "--hook-type",
                "prepare-commit-msg",
            ],
        );
        let out = gate_install(&repo, &[]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", show(&out));
        assert!(
            said(&out).contains(&format!("pre-commit: run by {name}")),
            "{name}: {}",
            show(&out)
        );
        commit_config_and_judge(&repo, ".pre-commit-config.yaml", "gate's hooks");
    }
}

/// The `hook` item of `gate doctor --json`'s answer `out` about the
/// pre-commit hook.
fn pre_commit_item(out: &Output) -> serde_json::Value {
    let doc: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", show(out)));
    doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["check"] == "hook" && i["subject"] == "pre-commit")
        .cloned()
        .unwrap_or_else(|| panic!("no pre-commit item: {doc}"))
}

/// gate's script in the framework's legacy slot and gate's hook in its
/// configuration: every commit runs gate twice. `gate doctor` says so (a
/// warning, with the remedy), and once the legacy script is removed the
/// hook is the configuration's alone.
#[test]
fn doctor_flags_gate_running_twice() {
    let test = crate::this_test!();
    let Some(framework) = tool("pre-commit", test) else {
        return;
    };
    let repo = plan_repo("required");
    start_42(&repo);
    let out = gate_install(&repo, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let gate_hook = "  - repo: local\n    hooks:\n      - id: gate-pre-commit\n        name: gate pre-commit\n        entry: gate hook pre-commit\n        language: system\n        pass_filenames: false\n        always_run: true\n        stages: [pre-commit]\n";
    repo.write(".pre-commit-config.yaml", format!("repos:\n{gate_hook}"));
    run_ok(&repo, &framework, &["install"]);
    let legacy = repo.path().join(".git/hooks/pre-commit.legacy");
    assert!(legacy.exists(), "gate's hook is the legacy one");
    let doctor = |repo: &TestRepo| {
        let out = repo
            .gate()
            .args(["doctor", "--json"])
            .env("PATH", path_with_gate())
            .output()
            .unwrap();
        pre_commit_item(&out)
    };
    let twice = doctor(&repo);
    assert_eq!(twice["status"], "warn", "{twice}");
    assert!(
        twice["detail"]
            .as_str()
            .unwrap()
            .contains("gate runs twice"),
        "{twice}"
    );
    assert!(
        twice["remedy"]
            .as_str()
            .unwrap()
            .contains("pre-commit.legacy"),
        "{twice}"
    );
    std::fs::remove_file(&legacy).unwrap();
    let once = doctor(&repo);
    assert_eq!(once["status"], "ok", "{once}");
}

/// A hook repository standing in for gate's: a crate whose binary `gate`
/// answers `--version` (with `STAND_IN_VERSION`, else this gate's
/// version), declared as `gate-pre-commit` (language rust). The frameworks
/// build it as they would build gate. Its path and rev.
fn stand_in_hook_repo() -> (TestRepo, String) {
    let hooks = TestRepo::new();
    hooks.write(
        ".pre-commit-hooks.yaml",
        "- id: gate-pre-commit\n  name: gate pre-commit\n  entry: gate hook pre-commit\n  language: rust\n  pass_filenames: false\n  always_run: true\n",
    );
    hooks.write(
        "Cargo.toml",
        "[package]\nname = \"stand-in\"\nversion = \"0.0.1\"\nedition = \"2021\"\n\n[[bin]]\nname = \"gate\"\npath = \"main.rs\"\n",
    );
    hooks.write(
        "main.rs",
        format!(
            "fn main() {{\n    let version = std::env::var(\"STAND_IN_VERSION\").unwrap_or_else(|_| \"{}\".into());\n    if std::env::args().nth(1).as_deref() == Some(\"--version\") {{\n        println!(\"gate {{version}}\");\n    }}\n}}\n",
            env!("CARGO_PKG_VERSION")
        ),
    );
    hooks.commit_all("the stand-in");
    let rev = hooks.head();
    (hooks, rev)
}

/// A `repo:` hook with gate's `gate-pre-commit` id (language rust) runs the
/// gate pre-commit builds in its own cache, not the one on PATH: `gate
/// doctor` looks there. Before the build it says the next commit builds
/// it; after, which binary runs, and a version other than its own as skew.
#[test]
fn doctor_checks_the_gate_a_repo_hook_built() {
    let test = crate::this_test!();
    let Some(framework) = tool("pre-commit", test) else {
        return;
    };
    let (hooks, rev) = stand_in_hook_repo();

    let repo = plan_repo("required");
    start_42(&repo);
    repo.write(
        ".pre-commit-config.yaml",
        format!(
            "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: gate-pre-commit\n",
            hooks.path().display()
        ),
    );
    run_ok(&repo, &framework, &["install"]);
    doctor_follows_the_build(
        &repo,
        &framework,
        "pre-commit",
        &["pre-commit-home", "rustenv-"],
        &rev,
    );
}

/// `gate doctor` on a `repo:` hook `framework` (`tool`) builds from the
/// stand-in at `rev`: before the build a warning that the next commit
/// builds it, naming `TOOL install-hooks`; after, the built binary (its
/// path holding each of `built_at`) as this gate's version; then, the
/// stand-in saying another version, skew, with both remedies.
fn doctor_follows_the_build(
    repo: &TestRepo,
    framework: &Path,
    tool: &str,
    built_at: &[&str],
    rev: &str,
) {
    let gate = assert_cmd::cargo::cargo_bin!("gate");
    let doctor = |version: Option<&str>| {
        let mut cmd = command(repo, gate, &["doctor", "--json"]);
        if let Some(v) = version {
            cmd.env("STAND_IN_VERSION", v);
        }
        pre_commit_item(&cmd.output().unwrap())
    };
    let text = |item: &serde_json::Value, key: &str| item[key].as_str().unwrap_or("").to_string();
    let before = doctor(None);
    assert_eq!(before["status"], "warn", "{before}");
    let detail = text(&before, "detail");
    assert!(
        detail.starts_with(&format!("{tool} builds gate from")) && detail.contains("has not yet"),
        "{before}"
    );
    let install_hooks = format!("{tool} install-hooks");
    assert!(text(&before, "remedy").contains(&install_hooks), "{before}");

    run_ok(repo, framework, &["install-hooks"]);
    let built = doctor(None);
    assert_eq!(built["status"], "ok", "{built}");
    let detail = text(&built, "detail");
    assert!(
        built_at.iter().all(|part| detail.contains(part)),
        "the binary {tool} built, at {built_at:?}: {built}"
    );
    assert!(detail.contains(rev), "{built}");

    let skewed = doctor(Some("0.0.1"));
    assert_eq!(skewed["status"], "warn", "{skewed}");
    assert!(
        text(&skewed, "detail").contains("gate 0.0.1, while this is gate"),
        "{skewed}"
    );
    let remedy = text(&skewed, "remedy");
    assert!(
        remedy.contains(&install_hooks) && remedy.contains("gate-pre-commit-installed"),
        "{skewed}"
    );
}

/// prek builds a `repo:` hook in its own home (`PREK_HOME`,
/// `hooks/rust-*`, each with a `.prek-hook.json` naming the repository and
/// rev), and `prek.toml` may declare it: `gate doctor` reads both. The real
/// prek builds the stand-in from a `prek.toml` in `[[repos]]` form.
#[test]
fn doctor_checks_the_gate_prek_built_from_prek_toml() {
    let test = crate::this_test!();
    let Some(prek) = tool("prek", test) else {
        return;
    };
    let (hooks, rev) = stand_in_hook_repo();
    let repo = plan_repo("required");
    start_42(&repo);
    repo.write(
        "prek.toml",
        format!(
            "[[repos]]\nrepo = \"{}\"\nrev = \"{rev}\"\nhooks = [\n  {{ id = \"gate-pre-commit\" }},\n]\n",
            hooks.path().display()
        ),
    );
    run_ok(&repo, &prek, &["install"]);
    doctor_follows_the_build(&repo, &prek, "prek", &["prek-home", "/hooks/rust-"], &rev);
}
