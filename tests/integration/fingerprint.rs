//! The source fingerprint on real repositories. For now: the git layer's
//! file listings it builds on, against the git CLI.

use std::process::Command;

use gate::git::{EntryKind, Repo, UntrackedKind};
use gate::path::RepoPath;

use crate::support::{TestRepo, isolate, nul_fields};
use crate::this_test;

fn open(repo: &TestRepo) -> Repo {
    Repo::discover(repo.path()).expect("discover the test repository")
}

fn paths(list: &[&str]) -> Vec<RepoPath> {
    list.iter().map(|p| RepoPath::from(*p)).collect()
}

fn mkfifo(repo: &TestRepo, rel: &str) {
    let status = Command::new("mkfifo")
        .arg(repo.abs(rel.as_bytes()))
        .status()
        .expect("run mkfifo");
    assert!(status.success());
}

// ---------------------------------------------------------------------------
// The git layer's listings against the git CLI.

fn literal(paths: &[&str]) -> Vec<String> {
    paths.iter().map(|p| format!(":(literal){p}")).collect()
}

#[test]
fn index_entries_under_match_git_ls_files_stage() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = TestRepo::new();
    repo.write("a/x.txt", "x");
    repo.write("a/b/y.sh", "y");
    repo.chmod(b"a/b/y.sh", true);
    repo.symlink(b"a/link", b"x.txt");
    repo.write("a2/z.txt", "z");
    repo.write("ab", "ab");
    repo.write("glob[1]/star*.txt", "g");
    repo.write("globs/other.txt", "o");
    repo.write_at(b"a/caf\xe9", "c");
    repo.write("top.txt", "t");
    repo.commit_all("c");
    let head = repo.head();
    repo.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{head},a/sub"),
    ]);
    repo.write("a/new.txt", "staged");
    repo.git(&["add", "a/new.txt"]);
    repo.write("a/intent.txt", "later");
    repo.git(&["add", "-N", "a/intent.txt"]);
    let gate_repo = open(&repo);
    for prefixes in [
        &["a"][..],
        &["a/b", "top.txt"],
        &["glob[1]"],
        &["a/x.txt", "missing", "a/sub"],
        &["ab", "a2"],
        &["nothing"],
    ] {
        let mut args = vec![
            "ls-files".to_owned(),
            "-z".into(),
            "--stage".into(),
            "--".into(),
        ];
        args.extend(literal(prefixes));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let git: Vec<(Vec<u8>, &str)> = nul_fields(&repo.git_bytes(&args))
            .into_iter()
            .map(|f| {
                let tab = f.iter().position(|b| *b == b'\t').unwrap();
                let mode = match &f[..6] {
                    b"100644" => "file",
                    b"100755" => "exec",
                    b"120000" => "link",
                    b"160000" => "gitlink",
                    other => panic!("{other:?}"),
                };
                (f[tab + 1..].to_vec(), mode)
            })
            .collect();
        let gate: Vec<(Vec<u8>, &str)> = gate_repo
            .index_entries_under(&gate_repo.read_index().unwrap(), &paths(prefixes))
            .unwrap()
            .into_iter()
            .map(|e| {
                let mode = match e.kind {
                    EntryKind::File => "file",
                    EntryKind::Executable => "exec",
                    EntryKind::Symlink => "link",
                    EntryKind::Gitlink => "gitlink",
                };
                (e.path.as_bytes().to_vec(), mode)
            })
            .collect();
        assert_eq!(gate, git, "{prefixes:?}");
    }
}

#[test]
fn untracked_under_matches_git_ls_files_others() {
    if !isolate(this_test!()) {
        return;
    }
    let repo = TestRepo::new();
    repo.write(".gitignore", "*.log\nbuild/\n/src/gen.rs\n");
    repo.write("src/.gitignore", "local/\n!keep.log\n");
    repo.write("src/tracked.rs", "t");
    repo.write("out/tracked-in-ignored.txt", "t");
    repo.commit_all("c");
    repo.write("out/.gitignore", "*\n");
    repo.git(&["add", "-f", "out/.gitignore"]);
    repo.write("src/new.rs", "n");
    repo.write("src/deep/er/new.rs", "n");
    repo.write("src/debug.log", "ignored");
    repo.write("src/keep.log", "re-included");
    repo.write("src/gen.rs", "anchored ignore");
    repo.write("src/local/x.rs", "ignored dir");
    repo.write("src/build/x.rs", "ignored dir");
    repo.write("out/new.txt", "ignored by out/.gitignore");
    repo.write("src/glob[1]/a.rs", "literal");
    repo.write("srcs/not-below.rs", "sibling");
    repo.write_at(b"src/caf\xe9.rs", "latin-1");
    repo.write("src/sp ace\nnl.rs", "odd");
    repo.symlink(b"src/link", b"tracked.rs");
    std::fs::create_dir_all(repo.abs(b"src/nested")).unwrap();
    repo.git_in(&repo.abs(b"src/nested"), &["init", "-q"]);
    repo.write("src/nested/inner.rs", "inside nested");
    std::fs::create_dir_all(repo.abs(b"src/empty")).unwrap();
    mkfifo(&repo, "src/fifo");
    let gate_repo = open(&repo);
    for dirs in [
        &["src"][..],
        &["src/deep", "out"],
        &["src/glob[1]"],
        &["srcs", "src/local"],
    ] {
        let mut args = vec![
            "ls-files".to_owned(),
            "-z".into(),
            "--others".into(),
            "--exclude-standard".into(),
            "--".into(),
        ];
        args.extend(literal(dirs));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let git: Vec<Vec<u8>> = nul_fields(&repo.git_bytes(&args))
            .into_iter()
            .map(|mut f| {
                if f.last() == Some(&b'/') {
                    f.pop();
                }
                f
            })
            .collect();
        let index = gate_repo.read_index().unwrap();
        let listed = gate_repo.untracked_under(&index, &paths(dirs)).unwrap();
        // git leaves FIFOs out; the git layer reports them as special.
        let gate: Vec<Vec<u8>> = listed
            .iter()
            .filter(|e| e.kind != UntrackedKind::Special)
            .map(|e| e.path.as_bytes().to_vec())
            .collect();
        let show = |v: &[Vec<u8>]| {
            v.iter()
                .map(|p| String::from_utf8_lossy(p).into_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(show(&gate), show(&git), "{dirs:?}");
        if dirs == ["src"] {
            let kind = |p: &str| {
                listed
                    .iter()
                    .find(|e| e.path.as_bytes() == p.as_bytes())
                    .map(|e| e.kind)
            };
            assert_eq!(kind("src/link"), Some(UntrackedKind::Symlink));
            assert_eq!(kind("src/nested"), Some(UntrackedKind::Repository));
            assert_eq!(kind("src/fifo"), Some(UntrackedKind::Special));
            assert_eq!(kind("src/new.rs"), Some(UntrackedKind::File));
        }
    }
    let index = gate_repo.read_index().unwrap();
    assert!(gate_repo.untracked_under(&index, &[]).unwrap().is_empty());
}
