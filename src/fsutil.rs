//! Durable file writes, advisory locks, and the one guarded read of gate's
//! own state.
//!
//! Every file gate writes (task files, the active pointer, hooks, receipts)
//! goes through [`write_atomic`] or [`write_within`]: a temporary file,
//! written whole, fsynced, renamed over the target, and the directory
//! fsynced. A crash leaves the old file or the new one, never a torn one.
//! Writers that read-modify-write hold a [`Lock`] so that concurrent runs
//! lose nothing.
//!
//! Every state file gate reads that it did not just write (the active
//! pointer, receipts, run markers, caches, start records, task and
//! configuration files, the index) is read by [`read_within`]: no symbolic
//! link followed on the way from a trusted directory (the work tree's root,
//! the git directory) to the file, a non-blocking open (a FIFO must not
//! hang a hook), regular files only, and a size cap per [`Kind`] checked
//! before reading and again while reading. A refusal names the file, or the
//! link on the way to it (docs/tasks.md, "Local state").

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

use crate::platform::{Dir, FileKind, OsError};

/// An I/O failure with the path it concerns.
#[derive(Debug, thiserror::Error)]
#[error("{}: {action}: {source}", path.display())]
pub struct FsError {
    pub path: PathBuf,
    pub action: &'static str,
    #[source]
    pub source: io::Error,
}

impl FsError {
    pub fn new(path: &Path, action: &'static str, source: io::Error) -> FsError {
        FsError {
            path: path.to_path_buf(),
            action,
            source,
        }
    }
}

/// A kind of file gate reads: what it is called in errors and the most
/// bytes gate reads of it. Each cap is far above what gate writes; a larger
/// file is not gate's, and reading it whole could exhaust memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kind {
    pub what: &'static str,
    pub max: u64,
}

impl Kind {
    /// `<git-dir>/gate/active`: one task id.
    pub const ACTIVE_POINTER: Kind = Kind {
        what: "the active task pointer",
        max: 4 << 10,
    };
    /// `<common-dir>/gate/started/<ID>`: one branch name.
    pub const START_RECORD: Kind = Kind {
        what: "a start record",
        max: 4 << 10,
    };
    /// `<common-dir>/gate/receipts/<check>/*.json`.
    pub const RECEIPT: Kind = Kind {
        what: "a receipt",
        max: 1 << 20,
    };
    /// `<common-dir>/gate/running/<check>/*.json`.
    pub const RUN_MARKER: Kind = Kind {
        what: "a run marker",
        max: 64 << 10,
    };
    /// `<common-dir>/gate/cache/*` (a 2 MB stat cache holds 20,000 entries).
    pub const CACHE: Kind = Kind {
        what: "a cache file",
        max: 1 << 30,
    };
    /// `.gate/policy.yaml`, `.gate/plan.yaml`, `.gate/tasks/*.md`.
    pub const GATE_FILE: Kind = Kind {
        what: "gate's files",
        max: 1 << 20,
    };
    /// A hook in the hooks directory, read to tell gate's own from another's.
    pub const HOOK: Kind = Kind {
        what: "a hook",
        max: 1 << 20,
    };
    /// git's index, where gate reads it itself.
    pub const INDEX: Kind = Kind {
        what: "the index",
        max: 4 << 30,
    };
    /// `<common-dir>/gate/sequence`: the last order a run took.
    pub const SEQUENCE: Kind = Kind {
        what: "the run sequence",
        max: 64,
    };
    /// The message git hands `prepare-commit-msg` (with `commit -v`, the
    /// whole diff below the scissors line).
    pub const COMMIT_MESSAGE: Kind = Kind {
        what: "the commit message",
        max: 256 << 20,
    };
    /// A file of git's own state gate reads itself (`MERGE_HEAD`).
    pub const GIT_STATE: Kind = Kind {
        what: "git's state files",
        max: 1 << 20,
    };
    /// A commit-graph file, of which gate reads a few chunks (each bounded
    /// by the file's own table and size, never the whole file).
    pub const COMMIT_GRAPH: Kind = Kind {
        what: "a commit-graph file",
        max: 1 << 40,
    };
}

/// Why a guarded read ([`read_within`], [`list_within`]) refused.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{}: cannot read: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    /// A symbolic link on the way to the file, or the file itself: gate
    /// neither reads nor writes its state through a link, which could lead
    /// out of the repository.
    #[error("{}: a symbolic link; gate reads its state only where the repository keeps it, never through a link: replace the link with the directory or file it points to", path.display())]
    Link { path: PathBuf },
    #[error("{}: cannot read: not a regular file ({found})", path.display())]
    NotRegular { path: PathBuf, found: &'static str },
    #[error("{}: {size} bytes is over the {max}-byte limit for {what}", path.display())]
    TooLarge {
        path: PathBuf,
        size: u64,
        max: u64,
        what: &'static str,
    },
}

impl ReadError {
    /// The file (or the link on the way to it) the error is about.
    pub fn path(&self) -> &Path {
        match self {
            ReadError::Io { path, .. }
            | ReadError::Link { path }
            | ReadError::NotRegular { path, .. }
            | ReadError::TooLarge { path, .. } => path,
        }
    }
}

/// One step of a walk from a trusted directory: `None` when absent.
type Step<T> = Result<Option<T>, ReadError>;

/// The directory `rel` below `base`, opened without following a symbolic
/// link below `base` (`base` itself is trusted: the work tree's root or a
/// git directory); `None` when a component is absent and `create` is
/// false. Created (each missing component, never through a link) when
/// `create` is true.
fn open_dir_within(base: &Path, rel: &Path, create: bool) -> Step<Dir> {
    let io_error = |path: &Path, e: OsError| ReadError::Io {
        path: path.to_path_buf(),
        source: e.into(),
    };
    if create {
        fs::create_dir_all(base).map_err(|e| ReadError::Io {
            path: base.to_path_buf(),
            source: e,
        })?;
    }
    let mut dir = match Dir::open(base) {
        Ok(dir) => dir,
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => return Err(io_error(base, e)),
    };
    let mut walked = base.to_path_buf();
    for part in rel.components() {
        let name = match part {
            Component::CurDir => continue,
            Component::Normal(name) => Path::new(name),
            _ => {
                return Err(ReadError::Io {
                    path: base.join(rel),
                    source: io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "not a plain relative path",
                    ),
                });
            }
        };
        walked.push(name);
        let mut opened = dir.sub(name);
        if create && opened.as_ref().is_err_and(|e| e.is_not_found()) {
            match dir.mkdir(name) {
                Ok(()) => {}
                Err(e) if e.is_exists() => {}
                Err(e) => return Err(io_error(&walked, e)),
            }
            opened = dir.sub(name);
        }
        dir = match opened {
            Ok(sub) => sub,
            Err(e) if e.is_not_found() => return Ok(None),
            Err(e) => {
                return Err(match dir.kind_of(name) {
                    Some(FileKind::Symlink) => ReadError::Link { path: walked },
                    _ => io_error(&walked, e),
                });
            }
        };
    }
    Ok(Some(dir))
}

/// The directories gate keeps its state in below `<dir>/gate/` (`dir`: the
/// common directory; the git directory of a linked worktree holds only the
/// active pointer and its lock) — docs/tasks.md, "Local state".
pub const STATE_DIRS: &[&str] = &[
    "receipts", "running", "logs", "recorded", "started", "cache", "locks", "tmp",
];

/// Those of [`STATE_DIRS`] that hold one directory per acceptance check.
const PER_CHECK_DIRS: &[&str] = &["receipts", "running", "logs"];

/// Check gate's state directory below `dir` (a git directory or the common
/// directory, trusted as it is): `<dir>/gate`, each of [`STATE_DIRS`] in
/// it and each per-check directory in those, looked at from `dir`
/// component by component without following a link. A symbolic link at
/// any of them is [`ReadError::Link`] naming it: gate never reads or
/// writes its state through a link, which could lead out of the
/// repository. Anything else — absent, a directory, a file where a
/// directory belongs — is left to the read or write that meets it (gate
/// creates what is absent; a file in a directory's place fails that one
/// step, as before). Every verb that opens a work tree asks this before it
/// touches its state (`crate::ctx::Ctx::open`).
pub fn check_state_dir(dir: &Path) -> Result<(), ReadError> {
    let Ok(base) = Dir::open(dir) else {
        return Ok(());
    };
    // The directory `name` in `parent` (at `path`): a link is refused;
    // `None` when it is not a directory that opens.
    let step = |parent: &Dir, name: &Path, path: PathBuf| -> Step<Dir> {
        if parent.kind_of(name) == Some(FileKind::Symlink) {
            return Err(ReadError::Link { path });
        }
        Ok(parent.sub(name).ok())
    };
    let shown = dir.join("gate");
    let Some(gate) = step(&base, Path::new("gate"), shown.clone())? else {
        return Ok(());
    };
    for sub in STATE_DIRS {
        let path = shown.join(sub);
        let Some(fd) = step(&gate, Path::new(sub), path.clone())? else {
            continue;
        };
        if !PER_CHECK_DIRS.contains(sub) {
            continue;
        }
        let Ok(names) = fd.names() else {
            continue;
        };
        for name in names {
            let name = Path::new(&name);
            step(&fd, name, path.join(name))?;
        }
    }
    Ok(())
}

/// The file `rel` below `base`, opened for reading without following a
/// symbolic link below `base` and without blocking (a FIFO opens at once
/// and is refused), if it is a regular file of at most `kind.max` bytes;
/// `None` when absent. With its metadata, taken on the open handle.
pub fn open_within(base: &Path, rel: &Path, kind: Kind) -> Step<(File, fs::Metadata)> {
    let shown = base.join(rel);
    let (Some(parent), Some(name)) = (rel.parent(), rel.file_name()) else {
        return Err(ReadError::Io {
            path: shown,
            source: io::Error::new(io::ErrorKind::InvalidInput, "not a file name"),
        });
    };
    let Some(dir) = open_dir_within(base, parent, false)? else {
        return Ok(None);
    };
    let file = match dir.open_file(name) {
        Ok(file) => file,
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => {
            return Err(match dir.kind_of(Path::new(name)) {
                Some(FileKind::Symlink) => ReadError::Link { path: shown },
                Some(t) if t != FileKind::Regular => ReadError::NotRegular {
                    path: shown,
                    found: t.name(),
                },
                _ => ReadError::Io {
                    path: shown,
                    source: e.into(),
                },
            });
        }
    };
    let meta = file.metadata().map_err(|e| ReadError::Io {
        path: shown.clone(),
        source: e,
    })?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular {
            path: shown,
            found: FileKind::of(&meta).name(),
        });
    }
    if meta.len() > kind.max {
        return Err(ReadError::TooLarge {
            path: shown,
            size: meta.len(),
            max: kind.max,
            what: kind.what,
        });
    }
    Ok(Some((file, meta)))
}

/// The bytes of the file `rel` below `base`, read as [`open_within`] opens
/// it and never past `kind.max` (a file that grows while read is refused);
/// `None` when absent.
pub fn read_within(base: &Path, rel: &Path, kind: Kind) -> Step<Vec<u8>> {
    Ok(read_within_meta(base, rel, kind)?.map(|(bytes, _)| bytes))
}

/// [`read_within`] with the metadata of the handle the bytes came from.
pub fn read_within_meta(base: &Path, rel: &Path, kind: Kind) -> Step<(Vec<u8>, fs::Metadata)> {
    let Some((file, meta)) = open_within(base, rel, kind)? else {
        return Ok(None);
    };
    let shown = || base.join(rel);
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(kind.max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ReadError::Io {
            path: shown(),
            source: e,
        })?;
    let size = bytes.len() as u64;
    if size > kind.max {
        return Err(ReadError::TooLarge {
            path: shown(),
            size,
            max: kind.max,
            what: kind.what,
        });
    }
    Ok(Some((bytes, meta)))
}

/// [`read_within`] for a file whose directory is trusted as it is: only
/// the file itself must not be a link.
pub fn read_file(path: &Path, kind: Kind) -> Step<Vec<u8>> {
    let (base, rel) = split_last(path);
    read_within(base, rel, kind)
}

/// `path` as its directory and its last component.
fn split_last(path: &Path) -> (&Path, &Path) {
    let base = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let rel = path.file_name().map_or(path, Path::new);
    (base, rel)
}

/// The names in the directory `rel` below `base` (reached without
/// following a link), unsorted; `None` when it is absent.
pub fn list_within(base: &Path, rel: &Path) -> Step<Vec<OsString>> {
    let Some(dir) = open_dir_within(base, rel, false)? else {
        return Ok(None);
    };
    dir.names().map(Some).map_err(|e| ReadError::Io {
        path: base.join(rel),
        source: e.into(),
    })
}

/// Replace `path` with `bytes` atomically (a temporary file in the same
/// directory, fsync, rename, fsync of the directory). Creates missing parent
/// directories. `mode` sets Unix permission bits on the new file (e.g.
/// `0o755` for hooks; where there are none, only read-only). A symbolic
/// link at `path` is replaced, never followed.
pub fn write_atomic(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<(), FsError> {
    let (base, rel) = split_last(path);
    write_within(base, rel, bytes, mode, None)
}

/// [`write_atomic`] without the fsyncs, for a file that a running git
/// command reads next and that lasts no longer than that command: the
/// commit message `prepare-commit-msg` edits (git writes it without a
/// sync; a crash loses the commit too). Still a rename, so git never reads
/// half a message. The two syncs were about 8 ms of a 10 ms hook inside a
/// `git commit` on this project's test machine.
pub fn write_transient(path: &Path, bytes: &[u8]) -> Result<(), FsError> {
    let (base, rel) = split_last(path);
    replace_within(base, rel, bytes, None, None, false)
}

/// Replace the file `rel` below `base` with `bytes` atomically, creating
/// the directories on the way, never through a symbolic link below `base`:
/// a link there (a committed `.gate` or `.gate/tasks` that points out of
/// the repository) is refused, naming it.
///
/// The temporary file goes in `spare` (a directory of gate's under the git
/// directory, where no `git add` can pick it up) when it is on the target's
/// file system, so the rename stays atomic; else beside the target. A
/// writer killed before the rename leaves it there, never in the work tree.
pub fn write_within(
    base: &Path,
    rel: &Path,
    bytes: &[u8],
    mode: Option<u32>,
    spare: Option<&Path>,
) -> Result<(), FsError> {
    replace_within(base, rel, bytes, mode, spare, true)
}

/// [`write_within`], its fsyncs made only where `durable`.
fn replace_within(
    base: &Path,
    rel: &Path,
    bytes: &[u8],
    mode: Option<u32>,
    spare: Option<&Path>,
    durable: bool,
) -> Result<(), FsError> {
    let target = base.join(rel);
    let (Some(parent), Some(name)) = (rel.parent(), rel.file_name()) else {
        return Err(FsError::new(
            &target,
            "write",
            io::Error::new(io::ErrorKind::InvalidInput, "not a file name"),
        ));
    };
    let dir = open_dir_within(base, parent, true)
        .map_err(|e| write_refusal(&target, e))?
        .expect("a directory just created exists");
    let beside = || {
        dir.try_clone()
            .map_err(|e| FsError::new(&target, "open", e))
    };
    let (tmp_dir, in_spare) = match spare.map(|s| open_dir_within(s, Path::new(""), true)) {
        Some(Ok(Some(spare))) if spare.same_device(&dir) => (spare, true),
        _ => (beside()?, false),
    };
    let write = |tmp_dir: &Dir| write_renamed(tmp_dir, &dir, name, &target, bytes, mode, durable);
    let written = match write(&tmp_dir) {
        // Where the device cannot be told (the portable platform), the
        // rename says: then beside the target.
        Err(Attempt::CrossDevice(_)) if in_spare => write(&beside()?),
        written => written,
    };
    written.map_err(|(Attempt::CrossDevice(e) | Attempt::Failed(e))| e)
}

/// Why a write through a temporary file failed.
enum Attempt {
    /// The temporary file's directory is on another file system.
    CrossDevice(FsError),
    Failed(FsError),
}

/// Write `bytes` to a new temporary file in `tmp_dir` and rename it to
/// `name` in `dir`; the temporary file removed on failure.
fn write_renamed(
    tmp_dir: &Dir,
    dir: &Dir,
    name: &std::ffi::OsStr,
    target: &Path,
    bytes: &[u8],
    mode: Option<u32>,
    durable: bool,
) -> Result<(), Attempt> {
    let tmp = format!(
        ".{}.tmp.{}.{}",
        name.to_string_lossy(),
        std::process::id(),
        unique()
    );
    let failed =
        |action: &'static str, e: io::Error| Attempt::Failed(FsError::new(target, action, e));
    let result = (|| {
        let mut file = tmp_dir
            .create_new(Path::new(&tmp))
            .map_err(|e| failed("create temporary file", e.into()))?;
        file.write_all(bytes).map_err(|e| failed("write", e))?;
        if let Some(mode) = mode {
            crate::platform::set_mode(&file, mode).map_err(|e| failed("set permissions", e))?;
        }
        if durable {
            file.sync_all().map_err(|e| failed("fsync", e))?;
        }
        crash_point("before-rename");
        // The file is closed first: a file open cannot be renamed over
        // on every platform.
        drop(file);
        tmp_dir
            .rename(Path::new(&tmp), dir, Path::new(name))
            .map_err(|e| match e.is_cross_device() {
                true => Attempt::CrossDevice(FsError::new(target, "replace", e.into())),
                false => failed("replace", e.into()),
            })?;
        // Directory fsync makes the rename durable; some file systems
        // refuse it, and the rename is already atomic without it.
        if durable {
            dir.sync();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = tmp_dir.unlink(Path::new(&tmp));
    }
    result
}

/// Create `rel` below `base` with `bytes`, refusing when it exists (even
/// when a concurrent creator made it first: the last step is a hard link,
/// which fails if the target exists), never through a symbolic link below
/// `base`; the temporary file goes where [`write_within`] puts it.
/// `Ok(false)` when the file already existed.
pub fn create_within(
    base: &Path,
    rel: &Path,
    bytes: &[u8],
    spare: Option<&Path>,
) -> Result<bool, FsError> {
    let target = base.join(rel);
    let (Some(parent), Some(name)) = (rel.parent(), rel.file_name()) else {
        return Err(FsError::new(
            &target,
            "create",
            io::Error::new(io::ErrorKind::InvalidInput, "not a file name"),
        ));
    };
    let dir = open_dir_within(base, parent, true)
        .map_err(|e| write_refusal(&target, e))?
        .expect("a directory just created exists");
    let beside = || -> Result<(PathBuf, Dir), FsError> {
        let dir = dir
            .try_clone()
            .map_err(|e| FsError::new(&target, "open", e))?;
        Ok((base.join(parent), dir))
    };
    let (chosen, in_spare) = match spare.map(|s| (s, open_dir_within(s, Path::new(""), true))) {
        Some((s, Ok(Some(spare)))) if spare.same_device(&dir) => ((s.to_path_buf(), spare), true),
        _ => (beside()?, false),
    };
    let link = |(tmp_base, tmp_dir): (PathBuf, Dir)| -> Result<Result<(), OsError>, FsError> {
        let tmp = PathBuf::from(format!(
            ".{}.new.{}.{}",
            name.to_string_lossy(),
            std::process::id(),
            unique()
        ));
        write_within(&tmp_base, &tmp, bytes, None, None)?;
        let linked = tmp_dir.link(&tmp, &dir, Path::new(name));
        let _ = tmp_dir.unlink(&tmp);
        Ok(linked)
    };
    let linked = match link(chosen)? {
        // Where the device cannot be told (the portable platform), the
        // link says: then beside the target.
        Err(e) if e.is_cross_device() && in_spare => link(beside()?)?,
        linked => linked,
    };
    match linked {
        Ok(()) => {
            dir.sync();
            Ok(true)
        }
        Err(e) if e.is_exists() => Ok(false),
        Err(e) => Err(FsError::new(&target, "create", e.into())),
    }
}

/// In a debug build, end the process here, as `kill -9` would, when
/// `GATE_TEST_CRASH` names this point: the tests' way to crash a write
/// half done (tests/integration/start_task.rs). Release builds have none.
fn crash_point(at: &str) {
    #[cfg(debug_assertions)]
    if std::env::var_os("GATE_TEST_CRASH").is_some_and(|v| v == at) {
        std::process::abort();
    }
    #[cfg(not(debug_assertions))]
    let _ = at;
}

/// A guarded walk's refusal as a write's error, naming the link.
fn write_refusal(target: &Path, e: ReadError) -> FsError {
    match e {
        ReadError::Link { path } => FsError::new(
            &path,
            "write",
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "a symbolic link; gate does not write {} through a link, which could lead out of the repository: replace the link with a directory",
                    target.display()
                ),
            ),
        ),
        ReadError::Io { path, source } => FsError::new(&path, "create directory", source),
        other => FsError::new(
            other.path(),
            "create directory",
            io::Error::other(other.to_string()),
        ),
    }
}

/// Open `path` for writing from its start, created if missing: a log gate
/// writes as it goes. Never through a link at `path`, and without blocking
/// (a FIFO there, which would wait for a reader, is refused), a regular
/// file only.
pub fn create_truncated(path: &Path) -> Result<File, FsError> {
    let file = match crate::platform::open_writable(path, false) {
        Ok(file) => file,
        Err(e) => return Err(FsError::new(path, "create", refused_open(path, e))),
    };
    regular(path, &file, "create")?;
    file.set_len(0)
        .map_err(|e| FsError::new(path, "truncate", e))?;
    Ok(file)
}

/// Why opening `path` (not through a link, not blocking) failed: what is
/// there when it is a link or not a regular file, else the error.
fn refused_open(path: &Path, e: OsError) -> io::Error {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            io::Error::new(io::ErrorKind::InvalidInput, "a symbolic link, not followed")
        }
        Ok(m) if !m.is_file() => {
            let found = FileKind::of(&m).name();
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("not a regular file ({found})"),
            )
        }
        _ => e.into(),
    }
}

/// An error unless the open `file` at `path` is a regular file.
fn regular(path: &Path, file: &File, action: &'static str) -> Result<(), FsError> {
    let meta = file.metadata().map_err(|e| FsError::new(path, action, e))?;
    if meta.is_file() {
        return Ok(());
    }
    let found = FileKind::of(&meta).name();
    Err(FsError::new(
        path,
        action,
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a regular file ({found})"),
        ),
    ))
}

/// A process-unique counter so two writers in one process never share a
/// temporary name.
fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// An exclusive advisory lock on a lock file, released on drop.
#[derive(Debug)]
pub struct Lock {
    _file: File,
}

/// Why a lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(transparent)]
    Io(#[from] FsError),
    #[error("{}: still locked by another gate process after {}s", path.display(), waited.as_secs())]
    Timeout { path: PathBuf, waited: Duration },
}

/// Take an exclusive lock on `path` (created if missing), waiting up to
/// `timeout`. The lock is an OS file lock: a crashed holder releases it.
/// Opened like every state file: never through a link at `path`, without
/// blocking, and only a regular file (a FIFO or a link there is an error
/// naming it).
pub fn lock(path: &Path, timeout: Duration) -> Result<Lock, LockError> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| FsError::new(dir, "create directory", e))?;
    }
    let file = match crate::platform::open_writable(path, true) {
        Ok(file) => file,
        Err(e) => return Err(FsError::new(path, "open lock file", refused_open(path, e)).into()),
    };
    regular(path, &file, "open lock file")?;
    let start = Instant::now();
    let mut pause = Duration::from_millis(2);
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(Lock { _file: file }),
            Err(fs::TryLockError::WouldBlock) => {
                if start.elapsed() >= timeout {
                    return Err(LockError::Timeout {
                        path: path.to_path_buf(),
                        waited: timeout,
                    });
                }
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            Err(fs::TryLockError::Error(e)) => return Err(FsError::new(path, "lock", e).into()),
        }
    }
}

/// Remove a file that may be absent.
pub fn remove_optional(path: &Path) -> Result<(), FsError> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(FsError::new(path, "remove", e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_directory_that_is_a_link_is_named_and_nothing_else_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let (git, outside) = (tmp.path().join("git"), tmp.path().join("outside"));
        fs::create_dir_all(git.join("gate/receipts/unit")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        // A file where a directory belongs is left to the step that meets it.
        fs::write(git.join("gate/started"), "x").unwrap();
        assert!(check_state_dir(&git).is_ok());
        assert!(check_state_dir(&tmp.path().join("absent")).is_ok());
        let link_at = |rel: &str| {
            let path = git.join(rel);
            fs::rename(&path, tmp.path().join("moved")).unwrap();
            std::os::unix::fs::symlink(&outside, &path).unwrap();
            let refused = check_state_dir(&git);
            fs::remove_file(&path).unwrap();
            fs::rename(tmp.path().join("moved"), &path).unwrap();
            match refused {
                Err(ReadError::Link { path: named }) => assert_eq!(named, path),
                other => panic!("{rel}: {other:?}"),
            }
        };
        link_at("gate/receipts/unit");
        link_at("gate/receipts");
        link_at("gate");
        fs::create_dir_all(git.join("gate/cache")).unwrap();
        link_at("gate/cache");
        assert!(check_state_dir(&git).is_ok());
    }

    #[test]
    fn a_spare_directory_on_another_file_system_is_not_used_and_leaves_nothing() {
        use std::os::unix::fs::MetadataExt;
        let spare = match tempfile::tempdir_in("/dev/shm") {
            Ok(spare) => spare,
            Err(e) => panic!("this test needs a tmpfs at /dev/shm: {e}"),
        };
        let dir = tempfile::tempdir().unwrap();
        let dev = |p: &Path| fs::metadata(p).unwrap().dev();
        assert_ne!(dev(spare.path()), dev(dir.path()), "two file systems");
        let listing = |p: &Path| -> Vec<_> {
            let mut names: Vec<_> = fs::read_dir(p)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            names.sort();
            names
        };
        write_within(
            dir.path(),
            Path::new("a/state"),
            b"one",
            None,
            Some(spare.path()),
        )
        .unwrap();
        write_within(
            dir.path(),
            Path::new("a/state"),
            b"two",
            None,
            Some(spare.path()),
        )
        .unwrap();
        assert_eq!(fs::read(dir.path().join("a/state")).unwrap(), b"two");
        let created = create_within(dir.path(), Path::new("a/new"), b"x", Some(spare.path()));
        assert!(created.unwrap());
        let again = create_within(dir.path(), Path::new("a/new"), b"y", Some(spare.path()));
        assert!(!again.unwrap());
        assert_eq!(fs::read(dir.path().join("a/new")).unwrap(), b"x");
        assert_eq!(listing(&dir.path().join("a")), ["new", "state"]);
        assert!(listing(spare.path()).is_empty());
    }

    #[test]
    fn atomic_write_replaces_whole_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/file.txt");
        write_atomic(&path, b"one", None).unwrap();
        write_atomic(&path, b"two", Some(0o755)).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("file.txt")]);
        if crate::platform::EXEC_BITS {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&path).unwrap().permissions().mode() & 0o777,
                0o755
            );
        }
    }

    fn fifo(path: &Path) {
        rustix::fs::mknodat(
            rustix::fs::CWD,
            path,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
    }

    #[test]
    fn guarded_reads_refuse_fifos_links_and_oversized_files_naming_them() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path();
        fs::create_dir_all(base.join("gate")).unwrap();
        // A FIFO opens at once and is refused; without O_NONBLOCK this
        // test would hang here.
        fifo(&base.join("gate/active"));
        let err = read_within(base, Path::new("gate/active"), Kind::ACTIVE_POINTER).unwrap_err();
        assert!(
            matches!(
                &err,
                ReadError::NotRegular {
                    found: "a FIFO",
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("gate/active"), "{err}");
        // The file, or a directory on the way, a link: refused, named.
        fs::write(base.join("real"), "T-1\n").unwrap();
        std::os::unix::fs::symlink(base.join("real"), base.join("gate/link")).unwrap();
        let err = read_within(base, Path::new("gate/link"), Kind::ACTIVE_POINTER).unwrap_err();
        assert!(matches!(&err, ReadError::Link { .. }), "{err}");
        std::os::unix::fs::symlink(base.join("gate"), base.join("via")).unwrap();
        let err = read_within(base, Path::new("via/x"), Kind::ACTIVE_POINTER).unwrap_err();
        assert!(
            matches!(&err, ReadError::Link { path } if path == &base.join("via")),
            "{err}"
        );
        // Over the kind's cap: refused by its size, before reading.
        let big = fs::File::create(base.join("gate/big")).unwrap();
        big.set_len(Kind::ACTIVE_POINTER.max + 1).unwrap();
        let err = read_within(base, Path::new("gate/big"), Kind::ACTIVE_POINTER).unwrap_err();
        assert!(matches!(&err, ReadError::TooLarge { .. }), "{err}");
        // Absent is not an error; a regular file reads whole.
        assert!(
            read_within(base, Path::new("gate/none"), Kind::ACTIVE_POINTER)
                .unwrap()
                .is_none()
        );
        assert!(
            read_within(base, Path::new("nodir/x"), Kind::ACTIVE_POINTER)
                .unwrap()
                .is_none()
        );
        assert_eq!(
            read_file(&base.join("real"), Kind::ACTIVE_POINTER)
                .unwrap()
                .unwrap(),
            b"T-1\n"
        );
        let mut names = list_within(base, Path::new("gate")).unwrap().unwrap();
        names.sort();
        assert_eq!(names, ["active", "big", "link"]);
        assert!(matches!(
            list_within(base, Path::new("via")),
            Err(ReadError::Link { .. })
        ));
    }

    #[test]
    fn writes_never_go_through_a_link_and_keep_temporaries_in_the_spare_dir() {
        let dir = tempfile::tempdir().unwrap();
        let (base, outside) = (dir.path().join("wt"), dir.path().join("outside"));
        fs::create_dir_all(&outside).unwrap();
        fs::create_dir_all(&base).unwrap();
        std::os::unix::fs::symlink(&outside, base.join(".gate")).unwrap();
        let err =
            write_within(&base, Path::new(".gate/tasks/T-1.md"), b"x", None, None).unwrap_err();
        assert_eq!(err.path, base.join(".gate"), "{err}");
        assert!(err.to_string().contains("symbolic link"), "{err}");
        let err = create_within(&base, Path::new(".gate/tasks/T-1.md"), b"x", None).unwrap_err();
        assert_eq!(err.path, base.join(".gate"), "{err}");
        assert_eq!(
            fs::read_dir(&outside).unwrap().count(),
            0,
            "nothing written outside"
        );
        fs::remove_file(base.join(".gate")).unwrap();
        let spare = dir.path().join("spare");
        let rel = Path::new(".gate/tasks/T-1.md");
        assert!(create_within(&base, rel, b"one", Some(&spare)).unwrap());
        assert!(!create_within(&base, rel, b"two", Some(&spare)).unwrap());
        write_within(&base, rel, b"three", None, Some(&spare)).unwrap();
        assert_eq!(fs::read(base.join(rel)).unwrap(), b"three");
        let names: Vec<_> = fs::read_dir(base.join(".gate/tasks"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["T-1.md"]);
        assert_eq!(fs::read_dir(&spare).unwrap().count(), 0);
    }

    #[test]
    fn a_lock_file_that_is_a_fifo_or_a_link_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("task-T-1.lock");
        fifo(&path);
        let err = lock(&path, Duration::from_millis(30)).unwrap_err();
        assert!(err.to_string().contains("task-T-1.lock"), "{err}");
        assert!(err.to_string().contains("a FIFO"), "{err}");
        fs::remove_file(&path).unwrap();
        let elsewhere = dir.path().join("elsewhere");
        std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
        let err = lock(&path, Duration::from_millis(30)).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert!(!elsewhere.exists(), "nothing created through the link");
    }

    #[test]
    fn a_log_is_created_whole_but_never_on_a_fifo_or_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("run.log");
        fs::write(&log, "an older run's output").unwrap();
        let mut file = create_truncated(&log).unwrap();
        file.write_all(b"new").unwrap();
        assert_eq!(fs::read(&log).unwrap(), b"new");
        fs::remove_file(&log).unwrap();
        let elsewhere = dir.path().join("elsewhere");
        std::os::unix::fs::symlink(&elsewhere, &log).unwrap();
        let err = create_truncated(&log).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert!(!elsewhere.exists(), "nothing created through the link");
        // A FIFO would wait for a reader: refused at once, named.
        fs::remove_file(&log).unwrap();
        fifo(&log);
        let err = create_truncated(&log).unwrap_err();
        assert!(err.to_string().contains("run.log"), "{err}");
        assert!(err.to_string().contains("a FIFO"), "{err}");
    }

    #[test]
    fn lock_times_out_while_held_and_frees_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lock");
        let held = lock(&path, Duration::from_secs(1)).unwrap();
        let err = lock(&path, Duration::from_millis(30)).unwrap_err();
        assert!(matches!(err, LockError::Timeout { .. }), "{err}");
        drop(held);
        lock(&path, Duration::from_millis(30)).unwrap();
    }

    #[test]
    fn concurrent_locked_appends_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("log");
        let lockp = dir.path().join("log.lock");
        std::thread::scope(|s| {
            for t in 0..4 {
                let (file, lockp) = (&file, &lockp);
                s.spawn(move || {
                    for i in 0..25 {
                        let _l = lock(lockp, Duration::from_secs(10)).unwrap();
                        let mut text = read_file(file, Kind::GATE_FILE)
                            .unwrap()
                            .unwrap_or_default();
                        text.extend_from_slice(format!("{t}-{i}\n").as_bytes());
                        write_atomic(file, &text, None).unwrap();
                    }
                });
            }
        });
        let text = fs::read_to_string(&file).unwrap();
        assert_eq!(text.lines().count(), 100);
    }
}
