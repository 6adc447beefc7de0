//! The portable implementation: `std` alone, so it builds wherever `std`
//! does (Windows first). A directory handle is its path; "never through a
//! link" and "never a FIFO" are checked by looking (`symlink_metadata`)
//! before opening, which a concurrent swap can slip between; there are no
//! permission bits, inode numbers or local sockets. docs/platforms.md
//! lists what differs from the unix implementation.

use std::ffi::OsString;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use super::{FileKind, OsError, Stat, Time};

#[cfg(test)]
pub(super) const IMPLEMENTATION: &str = "portable";

/// Whether files carry an executable bit of their own: on a unix host
/// (`std`'s permission bits), not on Windows, where git keeps it in the
/// index (`core.fileMode false`).
pub const EXEC_BITS: bool = cfg!(unix);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Inner {
    /// What the system said.
    Os(io::ErrorKind, Option<i32>),
    /// A symbolic link where none is followed.
    Link,
    /// A directory expected, something else found.
    NotDir,
    /// A regular file expected, something else found.
    NotRegular,
    /// Not a plain relative name.
    Invalid,
}

impl Inner {
    pub(super) fn is_not_found(self) -> bool {
        matches!(self, Inner::Os(io::ErrorKind::NotFound, _))
    }
    pub(super) fn is_not_dir(self) -> bool {
        matches!(
            self,
            Inner::NotDir | Inner::Os(io::ErrorKind::NotADirectory, _)
        )
    }
    pub(super) fn is_exists(self) -> bool {
        matches!(self, Inner::Os(io::ErrorKind::AlreadyExists, _))
    }
    pub(super) fn is_link(self) -> bool {
        self == Inner::Link
    }
    pub(super) fn is_cross_device(self) -> bool {
        matches!(self, Inner::Os(io::ErrorKind::CrossesDevices, _))
    }
    pub(super) fn into_io(self) -> io::Error {
        match self {
            Inner::Os(_, Some(code)) => io::Error::from_raw_os_error(code),
            Inner::Os(kind, None) => io::Error::from(kind),
            Inner::Link => {
                io::Error::new(io::ErrorKind::InvalidInput, "a symbolic link, not followed")
            }
            Inner::NotDir => io::Error::new(io::ErrorKind::NotADirectory, "not a directory"),
            Inner::NotRegular => io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"),
            Inner::Invalid => {
                io::Error::new(io::ErrorKind::InvalidInput, "not a plain relative path")
            }
        }
    }
}

fn err(e: io::Error) -> OsError {
    OsError(Inner::Os(e.kind(), e.raw_os_error()))
}

fn said(what: Inner) -> OsError {
    OsError(what)
}

/// A kind other than a file, a directory or a link: named where `std`
/// can tell one (a unix host), else unknown (Windows has none in a work
/// tree).
pub(super) fn special(t: &fs::FileType) -> FileKind {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return FileKind::Fifo;
        } else if t.is_socket() {
            return FileKind::Socket;
        } else if t.is_char_device() {
            return FileKind::CharDevice;
        } else if t.is_block_device() {
            return FileKind::BlockDevice;
        }
    }
    let _ = t;
    FileKind::Unknown
}

pub(super) fn os_path(bytes: &[u8]) -> Option<&Path> {
    std::str::from_utf8(bytes).ok().map(Path::new)
}

/// `rel` (`/`-separated) below `base`, one component at a time.
fn below(base: &Path, rel: &[u8]) -> Result<PathBuf, OsError> {
    let rel = std::str::from_utf8(rel).map_err(|_| said(Inner::Invalid))?;
    let mut path = base.to_path_buf();
    for part in rel.split('/').filter(|p| !p.is_empty() && *p != ".") {
        if part == ".." {
            return Err(said(Inner::Invalid));
        }
        path.push(part);
    }
    Ok(path)
}

/// What is at `path`, not following a link at it; an error when nothing
/// is, or a directory above it is not one (or is a link).
fn look(base: &Path, rel: &[u8]) -> Result<(PathBuf, fs::Metadata), OsError> {
    let path = below(base, rel)?;
    // Each directory on the way must be one, not a link to one.
    let mut walked = base.to_path_buf();
    let parts: Vec<&str> = std::str::from_utf8(rel)
        .unwrap_or_default()
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    for part in parts.iter().take(parts.len().saturating_sub(1)) {
        walked.push(part);
        match fs::symlink_metadata(&walked) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(said(Inner::NotDir)),
            Err(e) => return Err(err(e)),
        }
    }
    match fs::symlink_metadata(&path) {
        Ok(meta) => Ok((path, meta)),
        Err(e) => Err(err(e)),
    }
}

/// A directory, by its path.
#[derive(Debug)]
pub struct Dir {
    path: PathBuf,
}

impl Dir {
    /// The directory at `path` (followed: the caller trusts it).
    pub fn open(path: &Path) -> Result<Dir, OsError> {
        match fs::metadata(path) {
            Ok(m) if m.is_dir() => Ok(Dir {
                path: path.to_path_buf(),
            }),
            Ok(_) => Err(said(Inner::NotDir)),
            Err(e) => Err(err(e)),
        }
    }

    /// [`Dir::open`]: there is no cheaper handle here.
    pub fn open_to_look(path: &Path) -> Result<Dir, OsError> {
        Dir::open(path)
    }

    /// The directory `name` in this one, never a link.
    pub fn sub(&self, name: &Path) -> Result<Dir, OsError> {
        if !super::plain(name) {
            return Err(said(Inner::Invalid));
        }
        let path = self.path.join(name);
        match fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => Err(said(Inner::Link)),
            Ok(m) if m.is_dir() => Ok(Dir { path }),
            Ok(_) => Err(said(Inner::NotDir)),
            Err(e) => Err(err(e)),
        }
    }

    /// The directory `rel` below this one, no link on the way.
    pub fn sub_to_look(&self, rel: &[u8]) -> Result<Dir, OsError> {
        match look(&self.path, rel)? {
            (_, m) if m.file_type().is_symlink() => Err(said(Inner::Link)),
            (path, m) if m.is_dir() => Ok(Dir { path }),
            _ => Err(said(Inner::NotDir)),
        }
    }

    /// What `name` is, not following a link.
    pub fn kind_of(&self, name: &Path) -> Option<FileKind> {
        fs::symlink_metadata(self.path.join(name))
            .ok()
            .map(|m| FileKind::of(&m))
    }

    /// `lstat` of `rel` (`/`-separated) below this directory.
    pub fn stat(&self, rel: &[u8]) -> Result<Stat, OsError> {
        look(&self.path, rel).map(|(_, meta)| Stat::of(&meta))
    }

    /// Create the directory `name` here.
    pub fn mkdir(&self, name: &Path) -> Result<(), OsError> {
        fs::create_dir(self.path.join(name)).map_err(err)
    }

    /// The file `name` (`/`-separated below this directory), for reading,
    /// if it is a regular file and no link: looked at, then opened.
    pub fn open_file(&self, name: impl AsRef<Path>) -> Result<File, OsError> {
        let rel = super::path_bytes(name.as_ref());
        let (path, meta) = look(&self.path, rel)?;
        if meta.file_type().is_symlink() {
            return Err(said(Inner::Link));
        }
        if !meta.is_file() {
            return Err(said(Inner::NotRegular));
        }
        File::open(path).map_err(err)
    }

    /// A new file `name` here, for writing; an error if anything is there.
    pub fn create_new(&self, name: &Path) -> Result<File, OsError> {
        File::options()
            .write(true)
            .create_new(true)
            .open(self.path.join(name))
            .map_err(err)
    }

    /// Rename `from` here to `to` in `dir`, replacing what is there.
    pub fn rename(&self, from: &Path, dir: &Dir, to: &Path) -> Result<(), OsError> {
        fs::rename(self.path.join(from), dir.path.join(to)).map_err(err)
    }

    /// A hard link `to` in `dir` to `from` here; an error when `to` exists.
    pub fn link(&self, from: &Path, dir: &Dir, to: &Path) -> Result<(), OsError> {
        fs::hard_link(self.path.join(from), dir.path.join(to)).map_err(err)
    }

    /// Remove the file `name` here.
    pub fn unlink(&self, name: &Path) -> Result<(), OsError> {
        fs::remove_file(self.path.join(name)).map_err(err)
    }

    /// Make what was renamed here durable where a directory can be opened
    /// and synced (not on Windows: there a rename is durable once the
    /// file system journals it).
    pub fn sync(&self) {
        let _ = File::open(&self.path).and_then(|f| f.sync_all());
    }

    /// The names in this directory, unsorted.
    pub fn names(&self) -> Result<Vec<OsString>, OsError> {
        fs::read_dir(&self.path)
            .map_err(err)?
            .map(|entry| entry.map(|e| e.file_name()).map_err(err))
            .collect()
    }

    /// Unknown here (`std` gives no device): taken as the same, and the
    /// rename or link that finds otherwise fails with a cross-device
    /// error, on which the writer puts its temporary file beside the
    /// target instead (`crate::fsutil`).
    pub fn same_device(&self, _: &Dir) -> bool {
        true
    }

    pub fn try_clone(&self) -> io::Result<Dir> {
        Ok(Dir {
            path: self.path.clone(),
        })
    }
}

/// The `stat` of an open file.
pub fn file_stat(file: &File) -> Result<Stat, OsError> {
    file.metadata().map(|m| Stat::of(&m)).map_err(err)
}

/// `path` opened to write (`read`: and read), created if missing, when it
/// is absent or a regular file (looked at first).
pub fn open_writable(path: &Path, read: bool) -> Result<File, OsError> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => return Err(said(Inner::Link)),
        Ok(m) if !m.is_file() => return Err(said(Inner::NotRegular)),
        _ => {}
    }
    File::options()
        .read(read)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(err)
}

/// The permission bits `mode` where the host has them (a unix host);
/// else only read-only, set when `mode` has no write bit.
pub fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    #[cfg(unix)]
    let permissions = {
        use std::os::unix::fs::PermissionsExt;
        fs::Permissions::from_mode(mode)
    };
    #[cfg(not(unix))]
    let permissions = {
        let mut permissions = file.metadata()?.permissions();
        permissions.set_readonly(mode & 0o222 == 0);
        permissions
    };
    file.set_permissions(permissions)
}

/// The permission bits of `meta` where the host has them, else read and
/// write for all unless read-only.
fn mode_bits(meta: &fs::Metadata) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o7777
    }
    #[cfg(not(unix))]
    match meta.permissions().readonly() {
        true => 0o444,
        false => 0o666,
    }
}

/// Nothing to do with `std` alone: a directory under the user's own
/// temporary directory is already the user's (Windows' profile ACLs).
pub fn keep_private(_: &Path) -> io::Result<()> {
    Ok(())
}

/// Whether a file runs as a program: a regular file with an execute bit
/// where there are such bits; else any regular file (Git for Windows runs
/// a hook whatever its mode).
pub fn is_executable(meta: &fs::Metadata) -> bool {
    meta.is_file() && (!EXEC_BITS || mode_bits(meta) & 0o111 != 0)
}

impl Stat {
    /// What `std` tells of `meta` everywhere: the size, the modification
    /// time (standing in for the change time, which Windows does not
    /// give), the kind and the permission bits; no inode, device or link
    /// count. A stat cache trusts size and mtime alone, as git does on
    /// Windows.
    pub fn of(meta: &fs::Metadata) -> Stat {
        let mtime = Time::mtime_of(meta);
        Stat {
            size: meta.len(),
            mtime,
            ctime: mtime,
            ino: 0,
            dev: 0,
            mode: FileKind::of(meta).mode_bits() | mode_bits(meta),
            nlink: 0,
        }
    }
}

/// The portable platform cannot ask the kernel to drop mapped pages: they
/// stay resident until the mapping goes (docs/platforms.md).
///
/// # Safety
///
/// None needed here; the unix platform's contract is kept so callers are
/// the same on both.
pub unsafe fn let_go_of_mapped_pages(_: &[u8]) -> Option<()> {
    None
}

/// The portable platform leaves the allocator as it is.
pub fn return_freed_memory() {}

/// The portable platform leaves the allocator as it is.
pub fn keep_allocator_thresholds() {}

/// The portable platform leaves the allocator as it is.
pub fn make_room_in_thread_arena(_: usize) {}

/// `/proc`'s unit, where there is a `/proc` (Linux's usual 100).
pub fn clock_ticks_per_second() -> u64 {
    100
}

/// A local socket's stream: none here (watchman's named pipe is not
/// spoken), so never made.
#[derive(Debug)]
pub enum LocalStream {}

impl LocalStream {
    pub fn try_clone(&self) -> io::Result<LocalStream> {
        match *self {}
    }
    pub fn set_read_timeout(&self, _: Option<std::time::Duration>) -> io::Result<()> {
        match *self {}
    }
    pub fn set_write_timeout(&self, _: Option<std::time::Duration>) -> io::Result<()> {
        match *self {}
    }
}

impl io::Read for LocalStream {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        match *self {}
    }
}

impl io::Write for LocalStream {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        match *self {}
    }
    fn flush(&mut self) -> io::Result<()> {
        match *self {}
    }
}

/// Unsupported: the file system monitor is not asked here.
pub fn connect_local(_: impl AsRef<Path>) -> io::Result<LocalStream> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "local sockets are not spoken by this build",
    ))
}

/// Copies of stdin and stdout for a protocol (`gate mcp`). The streams
/// themselves stay where they are: `std` cannot move them aside, so a
/// child that writes to its inherited stdout writes to the client.
pub fn take_stdio() -> io::Result<(File, File)> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let input = io::stdin().as_fd().try_clone_to_owned()?;
        let output = io::stdout().as_fd().try_clone_to_owned()?;
        Ok((input.into(), output.into()))
    }
    #[cfg(windows)]
    {
        use std::os::windows::io::AsHandle;
        let input = io::stdin().as_handle().try_clone_to_owned()?;
        let output = io::stdout().as_handle().try_clone_to_owned()?;
        Ok((input.into(), output.into()))
    }
    #[cfg(not(any(unix, windows)))]
    {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "the standard streams cannot be taken on this platform",
        ))
    }
}

/// No signals here.
pub fn signal_of(_: &std::process::ExitStatus) -> Option<i32> {
    None
}
