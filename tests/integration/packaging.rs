//! gate's packages (docs/install.md): the npm packages `packaging/npm/
//! pack.sh` makes — the thin `git-gate` and a platform package holding the
//! binary, lefthook's layout — are installed from their tarballs by the
//! real npm, offline, and the `gate` npm puts on PATH is this gate: its
//! arguments, its output and its exit code pass through. So does the gate
//! of the wheel (maturin) and of the packaged crate (`cargo package`).

use std::path::Path;
use std::process::{Command, Output};

use crate::fixture::show;
use crate::support;

fn npm() -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("npm"))
        .find(|p| p.is_file())
}

fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{cmd:?}: {}", show(&out));
    out
}

/// The gate under test copied into `dir` without its debug information
/// (the debug build's is most of its size, and the packages carry it
/// whole), and the Rust target it was built for.
fn stripped_gate(dir: &Path) -> (std::path::PathBuf, &'static str) {
    let bin = dir.join("gate");
    std::fs::copy(assert_cmd::cargo::cargo_bin!("gate"), &bin).unwrap();
    run(Command::new("strip").arg(&bin));
    let target = match std::env::consts::ARCH {
        "aarch64" => "aarch64-unknown-linux-gnu",
        _ => "x86_64-unknown-linux-gnu",
    };
    (bin, target)
}

/// The gate a package installed at `gate` is this gate: it says this
/// version, and its exit codes pass through (a usage error is 2).
fn assert_this_gate(gate: &Path) {
    let out = run(Command::new(gate).arg("--version"));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("gate {}", env!("CARGO_PKG_VERSION"))
    );
    let out = Command::new(gate).args(["hook", "nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
}

#[test]
fn the_npm_packages_install_from_their_tarballs_and_run_this_gate() {
    let test = crate::this_test!();
    let Some(npm) = npm() else {
        support::skip(test, "npm is not on PATH; install it (see .ci/run)", None);
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (bin, target) = stripped_gate(scratch.path());
    let tarballs = scratch.path().join("tarballs");
    let packed = run(Command::new(root.join("packaging/npm/pack.sh"))
        .args([
            "--binary",
            bin.to_str().unwrap(),
            "--target",
            target,
            "--out",
        ])
        .arg(&tarballs));
    let listed = String::from_utf8_lossy(&packed.stdout).to_string();
    let files: Vec<&str> = listed.lines().collect();
    assert_eq!(files.len(), 2, "{listed}");
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        files[0].ends_with(&format!("git-gate-{version}.tgz")),
        "{listed}"
    );

    // The thin package alone: no binary for this platform, said plainly.
    let alone = scratch.path().join("alone");
    std::fs::create_dir_all(&alone).unwrap();
    let npm_install = |dir: &Path, tarballs: &[&str]| {
        run(Command::new(&npm)
            .current_dir(dir)
            .args([
                "install",
                "--offline",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
            ])
            .args(tarballs)
            .env("npm_config_cache", scratch.path().join("npm-cache")))
    };
    npm_install(&alone, &[files[0]]);
    let out = Command::new(alone.join("node_modules/.bin/gate"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no gate binary"),
        "{}",
        show(&out)
    );

    // Both: npm's `gate` is this gate.
    let both = scratch.path().join("both");
    std::fs::create_dir_all(&both).unwrap();
    npm_install(&both, &files);
    let gate = both.join("node_modules/.bin/gate");
    // Exit codes and stdin pass through: a usage error is 2, and a hook
    // input on stdin reaches gate.
    assert_this_gate(&gate);
    let repo = crate::support::TestRepo::new();
    let mut child = Command::new(&gate)
        .args([
            "-C",
            repo.path().to_str().unwrap(),
            "hook",
            "claude-code",
            "stop",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"not json").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not JSON"),
        "{}",
        show(&out)
    );
}

/// A program on PATH.
fn on_path(name: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The Python wheel (`pyproject.toml`, maturin's `bindings = "bin"`, as
/// prek and ruff ship) is built by the real maturin, installed with pip
/// into a fresh virtual environment, offline, and the `gate` it puts on
/// the environment's PATH is a gate of this source.
#[test]
fn the_wheel_installs_with_pip_into_a_fresh_venv_and_runs_this_gate() {
    let test = crate::this_test!();
    let (Some(maturin), Some(python)) = (on_path("maturin"), on_path("python3")) else {
        support::skip(
            test,
            "maturin or python3 is not on PATH; `pip install maturin` (see .ci/run)",
            None,
        );
        return;
    };
    // A build of its own: any cargo run in the suite's target directory,
    // even one with nothing to compile, links `target/debug/gate` again,
    // under the feet of the tests running it. The first run builds the
    // dependencies there (minutes): a long test.
    if !support::long_test(test) {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let wheels = scratch.path().join("wheels");
    let built = run(Command::new(&maturin)
        .current_dir(root)
        .args(["build", "--profile", "dev", "--locked", "--out"])
        .arg(&wheels)
        .env("CARGO_TARGET_DIR", root.join("target/packaging"))
        .env("NO_COLOR", "1"));
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&built.stdout),
        String::from_utf8_lossy(&built.stderr)
    );
    let wheel = std::fs::read_dir(&wheels)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "whl"))
        .unwrap_or_else(|| panic!("no wheel in {wheels:?}: {said}"));
    let name = wheel.file_name().unwrap().to_string_lossy().to_string();
    let version = env!("CARGO_PKG_VERSION");
    assert!(name.starts_with(&format!("git_gate-{version}-")), "{name}");
    let venv = scratch.path().join("venv");
    run(Command::new(&python).args(["-m", "venv"]).arg(&venv));
    run(Command::new(venv.join("bin/pip")).args([
        "install",
        "--quiet",
        "--no-index",
        "--no-deps",
        wheel.to_str().unwrap(),
    ]));
    assert_this_gate(&venv.join("bin/gate"));
}

/// The crate as crates.io would get it (`cargo package`): what the build
/// reads and the licences, no tests, no path dependency; and `cargo install`
/// from the packaged sources, unpacked where the repository is not, gives a
/// gate of this source.
#[test]
fn the_packaged_crate_installs_with_cargo_and_runs_this_gate() {
    let test = crate::this_test!();
    // Builds in a target directory of its own, as the wheel does (the first
    // run compiles the dependencies there): a long test.
    if !support::long_test(test) {
        return;
    }
    let (Some(cargo), Some(tar)) = (std::env::var_os("CARGO"), on_path("tar")) else {
        support::skip(test, "cargo (CARGO) or tar is missing", None);
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = root.join("target/packaging");
    let version = env!("CARGO_PKG_VERSION");
    run(Command::new(&cargo)
        .current_dir(root)
        .args([
            "package",
            "--locked",
            "--offline",
            "--no-verify",
            "--allow-dirty",
        ])
        .env("CARGO_TARGET_DIR", &target));
    let crate_file = target.join(format!("package/git-gate-{version}.crate"));
    run(Command::new(&tar)
        .arg("xzf")
        .arg(&crate_file)
        .arg("-C")
        .arg(scratch.path()));
    let unpacked = scratch.path().join(format!("git-gate-{version}"));
    for file in [
        "Cargo.toml",
        "Cargo.lock",
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "README.md",
        "src/main.rs",
        "src/git/packs.rs",
        "hooks/pre-commit",
        "policy/default.yaml",
        "docs/causes.md",
    ] {
        assert!(unpacked.join(file).is_file(), "{file} is not in the crate");
    }
    for left_out in ["tests", "scripts", "packaging", "vendor", ".ci"] {
        assert!(
            !unpacked.join(left_out).exists(),
            "{left_out}/ is in the crate"
        );
    }
    let manifest = std::fs::read_to_string(unpacked.join("Cargo.toml")).unwrap();
    assert!(
        !manifest.contains("[patch") && !manifest.contains("vendor/"),
        "the packaged manifest depends on a path:\n{manifest}"
    );
    let installed = scratch.path().join("root");
    run(Command::new(&cargo)
        .args(["install", "--locked", "--offline", "--debug", "--path"])
        .arg(&unpacked)
        .arg("--root")
        .arg(&installed)
        .env("CARGO_TARGET_DIR", &target));
    assert_this_gate(&installed.join("bin/gate"));
}

/// A release archive (`scripts/release.sh`, as the release workflow makes
/// one per platform) lists every file in SHA256SUMS, which the real
/// `sha256sum -c` accepts; its install.sh installs the binary beside it
/// without building, after checking its checksum, and refuses a binary
/// that does not match it or is not gate, leaving the installed one.
#[test]
fn a_release_archive_installs_its_binary_after_checking_its_checksum() {
    let test = crate::this_test!();
    let tools = ["npm", "tar", "gzip", "sha256sum", "strip"];
    if let Some(missing) = tools.iter().find(|t| on_path(t).is_none()) {
        support::skip(
            test,
            &format!("{missing} is not on PATH; install it (see .ci/run)"),
            None,
        );
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (bin, target) = stripped_gate(scratch.path());
    let version = env!("CARGO_PKG_VERSION");
    let out = scratch.path().join("out");
    run(Command::new(root.join("scripts/release.sh"))
        .args([
            "--binary",
            bin.to_str().unwrap(),
            "--target",
            target,
            "--out",
        ])
        .arg(&out));
    let name = format!("gate-{version}-{target}");
    let sums = std::fs::read_to_string(out.join("SHA256SUMS")).unwrap();
    let listed: Vec<&str> = sums.lines().filter_map(|l| l.split("  ").nth(1)).collect();
    assert_eq!(
        listed,
        [
            format!("{name}.tar.gz"),
            format!("npm/git-gate-{version}.tgz"),
            format!(
                "npm/git-gate-linux-{}-{version}.tgz",
                if target.starts_with("aarch64") {
                    "arm64"
                } else {
                    "x64"
                }
            ),
        ],
        "{sums}"
    );
    run(Command::new("sha256sum")
        .current_dir(&out)
        .args(["-c", "SHA256SUMS"]));

    let unpacked = scratch.path().join("unpacked");
    std::fs::create_dir(&unpacked).unwrap();
    run(Command::new("tar")
        .arg("xzf")
        .arg(out.join(format!("{name}.tar.gz")))
        .arg("-C")
        .arg(&unpacked));
    let dir = unpacked.join(&name);
    // cargo-binstall's templates (Cargo.toml) name this archive, and the
    // binary in it.
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let template = |key: &str| {
        manifest
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{key} = \"")))
            .and_then(|l| l.strip_suffix('"'))
            .unwrap_or_else(|| panic!("no {key} in Cargo.toml"))
            .replace("{ version }", version)
            .replace("{ target }", target)
            .replace("{ bin }", "gate")
            .replace("{ binary-ext }", "")
    };
    assert_eq!(
        template("pkg-url"),
        format!("{{ repo }}/releases/download/v{version}/{name}.tar.gz")
    );
    assert!(unpacked.join(template("bin-dir")).is_file());
    let home = scratch.path().join("home");
    let prefix = scratch.path().join("prefix");
    let install = |extra: &[&str]| {
        Command::new(dir.join("install.sh"))
            .args(["--prefix", prefix.to_str().unwrap()])
            .args(extra)
            .env("HOME", &home)
            .env_remove("GATE_BINARY")
            .output()
            .unwrap()
    };
    let first = install(&[]);
    let said = show(&first);
    assert!(first.status.success(), "{said}");
    assert!(
        said.contains("found a prebuilt binary beside install.sh"),
        "{said}"
    );
    assert!(said.contains("checksum verified"), "{said}");
    assert!(said.contains("(no build)"), "{said}");
    let installed = prefix.join("bin/gate");
    assert_this_gate(&installed);
    let good = std::fs::read(&installed).unwrap();

    // One byte more: refused, and the installed gate is left as it was.
    let mut bytes = std::fs::read(dir.join("gate")).unwrap();
    bytes.push(0);
    std::fs::write(dir.join("gate"), &bytes).unwrap();
    let tampered = install(&[]);
    assert_eq!(tampered.status.code(), Some(1), "{}", show(&tampered));
    assert!(
        show(&tampered).contains("does not match its checksum"),
        "{}",
        show(&tampered)
    );
    assert_eq!(std::fs::read(&installed).unwrap(), good);

    // A binary that is not gate, given with its own (right) checksum.
    let other = scratch.path().join("other");
    std::fs::write(&other, "#!/bin/sh\necho something else\n").unwrap();
    let digest = run(Command::new("sha256sum").arg(&other));
    let digest = String::from_utf8_lossy(&digest.stdout);
    let digest = digest.split(' ').next().unwrap();
    run(Command::new("chmod").arg("755").arg(&other));
    let not_gate = install(&["--binary", other.to_str().unwrap(), "--sha256", digest]);
    assert_eq!(not_gate.status.code(), Some(1), "{}", show(&not_gate));
    assert!(
        show(&not_gate).contains("is not gate"),
        "{}",
        show(&not_gate)
    );
    assert_eq!(std::fs::read(&installed).unwrap(), good);
    assert_eq!(
        std::fs::read_dir(prefix.join("bin")).unwrap().count(),
        1,
        "nothing left beside the installed gate"
    );
}

/// `link/hot-text.ld` (decision 0033), given to the linker as install.sh
/// gives it, links a Rust program that runs, and lays out what it lists
/// first: `main` (which every hook runs) comes before a function it does
/// not list, where the linker alone puts them the other way round.
#[test]
fn the_hot_text_script_links_and_lays_what_it_lists_first() {
    let test = crate::this_test!();
    if !cfg!(all(
        target_arch = "x86_64",
        target_os = "linux",
        target_env = "gnu"
    )) {
        support::skip(
            test,
            "the layout is for Linux x86_64 with glibc only (decision 0033)",
            None,
        );
        return;
    }
    if let Some(missing) = ["rustc", "nm"].iter().find(|t| on_path(t).is_none()) {
        support::skip(
            test,
            &format!("{missing} is not on PATH; install it (see .ci/run)"),
            None,
        );
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("link/hot-text.ld");
    let text = std::fs::read_to_string(&script).unwrap();
    assert!(text.contains("*(.text.main .text.unlikely.main)"), "{text}");
    assert!(!text.contains("gate_test_unlisted"));
    let scratch = tempfile::tempdir().unwrap();
    let source = scratch.path().join("tiny.rs");
    std::fs::write(
        &source,
        "#[inline(never)]\n\
         #[unsafe(no_mangle)]\n\
         pub extern \"C\" fn gate_test_unlisted(x: u64) -> u64 { x.wrapping_mul(31) }\n\
         fn main() { println!(\"{}\", gate_test_unlisted(std::env::args().count() as u64)); }\n",
    )
    .unwrap();
    // The address of `name` in the program built with `flags`, run first.
    let address = |exe: &Path, name: &str| -> u64 {
        let out = run(Command::new("nm").arg(exe));
        let listing = String::from_utf8_lossy(&out.stdout).to_string();
        let line = listing
            .lines()
            .find(|l| l.split_whitespace().nth(2) == Some(name))
            .unwrap_or_else(|| panic!("{name} is not in {}", exe.display()));
        u64::from_str_radix(line.split_whitespace().next().unwrap(), 16).unwrap()
    };
    let build = |name: &str, flags: &[String]| -> std::path::PathBuf {
        let exe = scratch.path().join(name);
        run(Command::new("rustc")
            .args(["--edition", "2024", "-O", "-C", "codegen-units=1"])
            .args(flags)
            .arg("-o")
            .arg(&exe)
            .arg(&source));
        let said = run(&mut Command::new(&exe));
        assert_eq!(String::from_utf8_lossy(&said.stdout), "31\n");
        exe
    };
    let plain = build("plain", &[]);
    assert!(
        address(&plain, "gate_test_unlisted") < address(&plain, "main"),
        "the linker alone no longer puts the unlisted function first: the test needs another"
    );
    let laid = build(
        "laid",
        &["-C".into(), format!("link-arg=-Wl,-T,{}", script.display())],
    );
    assert!(address(&laid, "main") < address(&laid, "gate_test_unlisted"));
}
