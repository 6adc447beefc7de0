//! Where a path given to gate lands: the file system path a write through
//! it reaches (symbolic links followed, the file itself need not exist),
//! and the work tree that owns it, found the way git finds one.
//!
//! One resolution for every door that judges a path before it is written:
//! `gate may-touch` (through `Ctx::path_in_tree`) and Claude Code's
//! pre-tool-use hook, so the two always answer alike (docs/agents.md). It
//! reads the file system (links, `.git` entries) and nothing else: no
//! repository, no configuration, no environment.

use std::ffi::OsString;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

/// Most symbolic links followed for one path, as Linux's own limit
/// (`ELOOP`): more is a loop, and a write through it would fail.
const MAX_LINKS: usize = 40;

/// `path` without `.` and with each `..` taking off the component before it,
/// reading no link: where the path points when `..` is taken as written.
pub fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Where a write to `path` lands: each component in turn, a symbolic link
/// replaced by its target (a relative target read from the link's
/// directory), `..` taken from the directory reached so far — the kernel's
/// reading. Components that do not exist yet are kept as written, so a new
/// file's path resolves too; a link whose target does not exist is still
/// followed (a write through it creates the target). A relative `path` is
/// taken from the current directory.
///
/// Refused: a loop of links, and a path whose `..` follows a link, so that
/// a tool that reads `..` as written (as most editors and agent tools do)
/// would write somewhere else than the kernel: name the file without `..`.
pub fn resolve(path: &Path) -> Result<PathBuf, String> {
    let absolute = std::path::absolute(path)
        .map_err(|e| format!("{} cannot be made absolute: {e}", path.display()))?;
    let physical = follow(&absolute)?;
    let as_written = follow(&lexical(&absolute))?;
    if physical != as_written {
        return Err(format!(
            "{} reaches {} through its links but {} with `..` read as written; name the file without `..`",
            path.display(),
            physical.display(),
            as_written.display()
        ));
    }
    Ok(physical)
}

/// `path` (absolute) with every link followed, component by component.
fn follow(path: &Path) -> Result<PathBuf, String> {
    let mut pending: Vec<OsString> = Vec::new();
    push_components(&mut pending, path);
    let mut out = PathBuf::from("/");
    let mut links = 0;
    // `pending` is a stack: its last element is the next component.
    while let Some(name) = pending.pop() {
        if name == ".." {
            out.pop();
            continue;
        }
        if name == "." {
            continue;
        }
        let next = out.join(&name);
        match std::fs::symlink_metadata(&next) {
            Ok(meta) if meta.file_type().is_symlink() => {
                links += 1;
                if links > MAX_LINKS {
                    return Err(format!(
                        "{}: more than {MAX_LINKS} symbolic links (a loop)",
                        path.display()
                    ));
                }
                let target = std::fs::read_link(&next)
                    .map_err(|e| format!("cannot read the link {}: {e}", next.display()))?;
                if target.is_absolute() {
                    out = PathBuf::from("/");
                }
                push_components(&mut pending, &target);
            }
            // Missing (a file to be created), or below a file: kept as
            // written. A component gate may not look at is kept too: the
            // kernel could not look through it either.
            Ok(_) => out = next,
            Err(e) if e.kind() == ErrorKind::NotFound => out = next,
            Err(_) => out = next,
        }
    }
    Ok(out)
}

/// Push `path`'s components on the stack so that the first is popped first.
fn push_components(stack: &mut Vec<OsString>, path: &Path) {
    let names: Vec<OsString> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => None,
        })
        .collect();
    stack.extend(names.into_iter().rev());
}

/// The work tree that owns `path` (a resolved path): the nearest directory
/// at or above it that holds a `.git` (a directory, or the file of a linked
/// worktree or submodule), as git's discovery finds it. A path inside a
/// `.git` directory belongs to the work tree above that `.git`. `None`: no
/// repository holds it.
pub fn work_tree_of(path: &Path) -> Option<PathBuf> {
    for dir in path.ancestors() {
        if dir.file_name().is_some_and(|n| n == ".git") {
            return dir.parent().map(Path::to_path_buf);
        }
        if std::fs::symlink_metadata(dir.join(".git")).is_ok() {
            return Some(dir.to_path_buf());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn tmp() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let real = std::fs::canonicalize(dir.path()).unwrap();
        (dir, real)
    }

    #[test]
    fn plain_paths_resolve_as_written_even_when_they_do_not_exist() {
        let (_d, root) = tmp();
        std::fs::create_dir_all(root.join("src")).unwrap();
        assert_eq!(
            resolve(&root.join("src/a.rs")).unwrap(),
            root.join("src/a.rs")
        );
        assert_eq!(
            resolve(&root.join("src/./new/dir/../b.rs")).unwrap(),
            root.join("src/new/b.rs")
        );
        assert_eq!(resolve(&root.join("src/..")).unwrap(), root);
        assert_eq!(lexical(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
    }

    #[test]
    fn links_are_followed_to_where_a_write_lands() {
        let (_d, root) = tmp();
        let (_o, other) = tmp();
        std::fs::create_dir_all(root.join("src")).unwrap();
        // A directory link out of the tree, a file link, a dangling one.
        symlink(&other, root.join("src/out")).unwrap();
        symlink("../README.md", root.join("src/readme")).unwrap();
        symlink(other.join("new.md"), root.join("dangling")).unwrap();
        assert_eq!(
            resolve(&root.join("src/out/x.md")).unwrap(),
            other.join("x.md")
        );
        assert_eq!(
            resolve(&root.join("src/readme")).unwrap(),
            root.join("README.md")
        );
        assert_eq!(
            resolve(&root.join("dangling")).unwrap(),
            other.join("new.md")
        );
    }

    #[test]
    fn dot_dot_after_a_link_and_loops_are_refused() {
        let (_d, root) = tmp();
        let (_o, other) = tmp();
        std::fs::create_dir_all(other.join("a/b")).unwrap();
        symlink(other.join("a/b"), root.join("link")).unwrap();
        let err = resolve(&root.join("link/../x")).unwrap_err();
        assert!(err.contains("without `..`"), "{err}");
        symlink(root.join("loop2"), root.join("loop1")).unwrap();
        symlink(root.join("loop1"), root.join("loop2")).unwrap();
        let err = resolve(&root.join("loop1/x")).unwrap_err();
        assert!(err.contains("a loop"), "{err}");
        // `..` after a plain directory is fine.
        std::fs::create_dir(root.join("d")).unwrap();
        assert_eq!(resolve(&root.join("d/../x")).unwrap(), root.join("x"));
    }

    #[test]
    fn the_owning_work_tree_is_the_nearest_with_a_git_entry() {
        let (_d, root) = tmp();
        std::fs::create_dir_all(root.join("repo/.git/hooks")).unwrap();
        std::fs::create_dir_all(root.join("repo/sub/inner")).unwrap();
        std::fs::write(root.join("repo/sub/.git"), "gitdir: ../.git/modules/sub\n").unwrap();
        assert_eq!(
            work_tree_of(&root.join("repo/src/new.rs")),
            Some(root.join("repo"))
        );
        assert_eq!(
            work_tree_of(&root.join("repo/sub/inner/x")),
            Some(root.join("repo/sub"))
        );
        assert_eq!(
            work_tree_of(&root.join("repo/.git/hooks/pre-commit")),
            Some(root.join("repo"))
        );
        assert_eq!(
            work_tree_of(&root.join("repo/.git")),
            Some(root.join("repo"))
        );
        assert_eq!(work_tree_of(&root.join("elsewhere/x")), None);
    }
}
