//! The unix implementation: file-descriptor-relative calls through
//! `rustix`, so that a name is looked up in the directory it was found
//! in, and `O_NOFOLLOW | O_NONBLOCK` opens that fail on a link or a FIFO
//! instead of following or waiting (the module's docs).

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::Path;

use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;

use super::{FileKind, OsError, Stat, Time};

#[cfg(test)]
pub(super) const IMPLEMENTATION: &str = "unix";

/// Whether files carry an executable bit of their own.
pub const EXEC_BITS: bool = true;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Inner(Errno);

impl Inner {
    pub(super) fn is_not_found(self) -> bool {
        self.0 == Errno::NOENT
    }
    pub(super) fn is_not_dir(self) -> bool {
        self.0 == Errno::NOTDIR
    }
    pub(super) fn is_exists(self) -> bool {
        self.0 == Errno::EXIST
    }
    pub(super) fn is_link(self) -> bool {
        self.0 == Errno::LOOP
    }
    pub(super) fn is_cross_device(self) -> bool {
        self.0 == Errno::XDEV
    }
    pub(super) fn into_io(self) -> io::Error {
        self.0.into()
    }
}

fn err(e: Errno) -> OsError {
    OsError(Inner(e))
}

pub(super) fn special(t: &fs::FileType) -> FileKind {
    if t.is_fifo() {
        FileKind::Fifo
    } else if t.is_socket() {
        FileKind::Socket
    } else if t.is_char_device() {
        FileKind::CharDevice
    } else if t.is_block_device() {
        FileKind::BlockDevice
    } else {
        FileKind::Unknown
    }
}

pub(super) fn os_path(bytes: &[u8]) -> Option<&Path> {
    Some(Path::new(OsStr::from_bytes(bytes)))
}

const DIR: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::CLOEXEC);
/// A handle only looked through (`O_PATH` where there is one): never read.
#[cfg(any(target_os = "linux", target_os = "android"))]
const LOOK: OFlags = OFlags::PATH.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC);
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const LOOK: OFlags = DIR;
const READ: OFlags = OFlags::RDONLY
    .union(OFlags::NOFOLLOW)
    .union(OFlags::NONBLOCK)
    .union(OFlags::NOCTTY)
    .union(OFlags::CLOEXEC);

/// An open directory: a handle to list, sync and open below
/// ([`Dir::open`]), or only to look through ([`Dir::open_to_look`]).
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
}

impl Dir {
    /// The directory at `path` (followed: the caller trusts it), to look
    /// in, open below, list and sync.
    pub fn open(path: &Path) -> Result<Dir, OsError> {
        rustix::fs::open(path, DIR, Mode::empty())
            .map(|fd| Dir { fd })
            .map_err(err)
    }

    /// The directory at `path`, only to look through (`stat` and open
    /// below it): cheaper where the system has `O_PATH`.
    pub fn open_to_look(path: &Path) -> Result<Dir, OsError> {
        rustix::fs::openat(rustix::fs::CWD, path, LOOK, Mode::empty())
            .map(|fd| Dir { fd })
            .map_err(err)
    }

    /// The directory `name` in this one, never through a link.
    pub fn sub(&self, name: &Path) -> Result<Dir, OsError> {
        if !super::plain(name) {
            return Err(err(Errno::INVAL));
        }
        rustix::fs::openat(&self.fd, name, DIR | OFlags::NOFOLLOW, Mode::empty())
            .map(|fd| Dir { fd })
            .map_err(err)
    }

    /// The directory `rel` (`/`-separated, any depth) below this one, only
    /// to look through; its last component is never a link.
    pub fn sub_to_look(&self, rel: &[u8]) -> Result<Dir, OsError> {
        rustix::fs::openat(&self.fd, rel, LOOK | OFlags::NOFOLLOW, Mode::empty())
            .map(|fd| Dir { fd })
            .map_err(err)
    }

    /// What `name` is, not following a link; `None` when that cannot be
    /// told (absent, or unreadable).
    #[allow(clippy::unnecessary_cast)] // `st_mode` is a u16 on macOS
    pub fn kind_of(&self, name: &Path) -> Option<FileKind> {
        rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW)
            .ok()
            .map(|st| FileKind::from_mode(st.st_mode as u32))
    }

    /// `lstat` of `rel` (`/`-separated, any depth) below this directory.
    pub fn stat(&self, rel: &[u8]) -> Result<Stat, OsError> {
        rustix::fs::statat(&self.fd, rel, AtFlags::SYMLINK_NOFOLLOW)
            .map(|raw| from_raw(&raw))
            .map_err(err)
    }

    /// Create the directory `name` here.
    pub fn mkdir(&self, name: &Path) -> Result<(), OsError> {
        rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o777)).map_err(err)
    }

    /// The file `name` (`/`-separated below this directory), for reading:
    /// never through a link at its last component, never waiting on a
    /// FIFO (one opens at once; the caller checks what it opened).
    pub fn open_file(&self, name: impl AsRef<Path>) -> Result<File, OsError> {
        rustix::fs::openat(&self.fd, name.as_ref(), READ, Mode::empty())
            .map(File::from)
            .map_err(err)
    }

    /// A new file `name` here, for writing; an error if anything (a link
    /// too) is at `name`.
    pub fn create_new(&self, name: &Path) -> Result<File, OsError> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        rustix::fs::openat(&self.fd, name, flags, Mode::from_raw_mode(0o666))
            .map(File::from)
            .map_err(err)
    }

    /// Rename `from` here to `to` in `dir`, replacing what is there.
    pub fn rename(&self, from: &Path, dir: &Dir, to: &Path) -> Result<(), OsError> {
        rustix::fs::renameat(&self.fd, from, &dir.fd, to).map_err(err)
    }

    /// A hard link `to` in `dir` to `from` here; an error when `to` exists.
    pub fn link(&self, from: &Path, dir: &Dir, to: &Path) -> Result<(), OsError> {
        rustix::fs::linkat(&self.fd, from, &dir.fd, to, AtFlags::empty()).map_err(err)
    }

    /// Remove the file `name` here.
    pub fn unlink(&self, name: &Path) -> Result<(), OsError> {
        rustix::fs::unlinkat(&self.fd, name, AtFlags::empty()).map_err(err)
    }

    /// Make what was renamed or linked here durable (best effort: some
    /// file systems refuse to sync a directory).
    pub fn sync(&self) {
        let _ = rustix::fs::fsync(&self.fd);
    }

    /// The names in this directory, unsorted, without `.` and `..`.
    pub fn names(&self) -> Result<Vec<OsString>, OsError> {
        let mut entries = rustix::fs::Dir::read_from(&self.fd).map_err(err)?;
        let mut names = Vec::new();
        while let Some(entry) = entries.read() {
            let entry = entry.map_err(err)?;
            let name = entry.file_name().to_bytes();
            if name != b"." && name != b".." {
                names.push(OsStr::from_bytes(name).to_os_string());
            }
        }
        Ok(names)
    }

    /// Whether `other` is on the same file system (a rename between them
    /// is atomic).
    pub fn same_device(&self, other: &Dir) -> bool {
        match (rustix::fs::fstat(&self.fd), rustix::fs::fstat(&other.fd)) {
            (Ok(a), Ok(b)) => a.st_dev == b.st_dev,
            _ => false,
        }
    }

    pub fn try_clone(&self) -> io::Result<Dir> {
        Ok(Dir {
            fd: self.fd.try_clone()?,
        })
    }
}

/// The `stat` of an open file.
pub fn file_stat(file: &File) -> Result<Stat, OsError> {
    rustix::fs::fstat(file.as_fd())
        .map(|raw| from_raw(&raw))
        .map_err(err)
}

/// `path` opened to write (`read`: and read), created if missing, never
/// through a link at `path` and never waiting on a FIFO; not truncated.
/// The caller checks that it is a regular file.
pub fn open_writable(path: &Path, read: bool) -> Result<File, OsError> {
    let access = if read { OFlags::RDWR } else { OFlags::WRONLY };
    let flags = access
        | OFlags::CREATE
        | OFlags::NOFOLLOW
        | OFlags::NONBLOCK
        | OFlags::NOCTTY
        | OFlags::CLOEXEC;
    rustix::fs::open(path, flags, Mode::from_raw_mode(0o666))
        .map(File::from)
        .map_err(err)
}

/// Set the permission bits of an open file (`0o755` for a hook).
pub fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    file.set_permissions(fs::Permissions::from_mode(mode))
}

/// Make the directory at `path` its owner's alone (`0o700`).
pub fn keep_private(path: &Path) -> io::Result<()> {
    fs::set_permissions(path, fs::Permissions::from_mode(0o700))
}

/// Whether a file runs as a program: a regular file with an execute bit.
pub fn is_executable(meta: &fs::Metadata) -> bool {
    meta.is_file() && meta.permissions().mode() & 0o111 != 0
}

impl Stat {
    /// The fields of `meta` (taken without following a link).
    pub fn of(meta: &fs::Metadata) -> Stat {
        Stat {
            size: meta.size(),
            mtime: Time {
                sec: meta.mtime(),
                nsec: meta.mtime_nsec(),
            },
            ctime: Time {
                sec: meta.ctime(),
                nsec: meta.ctime_nsec(),
            },
            ino: meta.ino(),
            dev: meta.dev(),
            mode: meta.mode(),
            nlink: meta.nlink(),
        }
    }
}

/// The fields of a raw `stat` (their integer types vary by platform).
#[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
fn from_raw(raw: &rustix::fs::Stat) -> Stat {
    Stat {
        size: raw.st_size as u64,
        mtime: Time {
            sec: raw.st_mtime as i64,
            nsec: raw.st_mtime_nsec as i64,
        },
        ctime: Time {
            sec: raw.st_ctime as i64,
            nsec: raw.st_ctime_nsec as i64,
        },
        ino: raw.st_ino as u64,
        dev: raw.st_dev as u64,
        mode: raw.st_mode as u32,
        nlink: raw.st_nlink as u64,
    }
}

/// Tell the kernel this process no longer needs the pages of `mapped`, a
/// read-only mapping of a file (`madvise(MADV_DONTNEED)`): they leave its
/// resident set, stay in the page cache, and are mapped again from the file
/// when next read, with the same bytes. `None` when the call failed (the
/// pages then simply stay).
///
/// # Safety
///
/// `mapped` must lie in a read-only mapping of a file that nothing writes
/// (`PROT_READ`, shared or private): dropped pages of anonymous or written
/// memory come back as zeros.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub unsafe fn let_go_of_mapped_pages(mapped: &[u8]) -> Option<()> {
    let page = rustix::param::page_size();
    let start = mapped.as_ptr() as usize;
    // A mapping starts on a page: the page `mapped` starts in is its own.
    let aligned = start - start % page;
    let len = mapped.len() + (start - aligned);
    // SAFETY: the caller promises a read-only file mapping; the range is
    // the pages `mapped` lies in, all of them inside that mapping.
    unsafe {
        rustix::mm::madvise(
            aligned as *mut std::ffi::c_void,
            len,
            rustix::mm::Advice::LinuxDontNeed,
        )
    }
    .ok()
}

/// On the other unix systems `MADV_DONTNEED` is only a hint, and rustix
/// offers Linux's meaning alone: the pages stay, as on the portable
/// platform (`None`).
///
/// # Safety
///
/// Nothing is asked of the kernel; the contract is Linux's, so callers are
/// the same everywhere.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub unsafe fn let_go_of_mapped_pages(_: &[u8]) -> Option<()> {
    None
}

/// Hand the memory the allocator holds free back to the system: glibc's
/// `malloc_trim`, which releases the free pages of every arena, the main
/// one's and those of threads that have ended (a thread's arena keeps what
/// it freed resident, and later allocations on another thread do not
/// reuse it). Nothing where the C library is not glibc.
pub fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` takes no pointer; it walks the allocator's
    // own free lists under their locks.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Keep the allocator's thresholds where they start: glibc's serves an
/// allocation of 128 KiB or more with its own mapping, returned when freed,
/// and trims an arena's free top past 128 KiB; but each time a mapped
/// block is freed it raises both thresholds to that block's size (up to 32
/// MiB), so that after a long walk has freed a few large buffers, freed
/// memory of that size stays in the arenas. Setting one threshold turns
/// that off (`mallopt(M_MMAP_THRESHOLD)`). Measured on git/git's whole
/// history: 9 MiB less resident at the peak (docs/performance.md, "Real
/// histories", Memory).
/// Nothing where the C library is not glibc.
pub fn keep_allocator_thresholds() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` takes two integers and sets the allocator's
    // parameters under its lock.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

/// Make room for `bytes` in the calling thread's allocator arena at once.
///
/// glibc grows a thread's arena (any but the main thread's) by as little
/// as each allocation needs, a page or two, and each growth past the most
/// the arena ever had is an `mprotect`: the kernel takes the process's
/// address-space lock and, with the process's threads on other cores,
/// flushes their TLBs with an interrupt to each (on a virtual machine a
/// round trip through the hypervisor). A diff thread grew its arena by 3
/// MiB on moby's 1k range, 12 on git/git's, in 700-870 such calls: 8 % of
/// the run's CPU on moby. Blocks just under the mapping threshold are
/// taken and freed here, one growth each; freed, they return to the
/// arena's top, which is trimmed (the pages given back) while the arena
/// keeps its room, so later growth up to `bytes` is page faults alone.
/// Nothing where the C library is not glibc.
pub fn make_room_in_thread_arena(bytes: usize) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // Under the 128 KiB mapping threshold (`keep_allocator_thresholds`),
        // with room for the allocator's headers.
        const STEP: usize = 120 << 10;
        let blocks: Vec<Vec<u8>> = (0..bytes / STEP)
            .map(|_| Vec::with_capacity(STEP))
            .collect();
        drop(blocks);
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = bytes;
}

/// Clock ticks per second, the unit of `/proc/PID/stat`'s times.
pub fn clock_ticks_per_second() -> u64 {
    rustix::param::clock_ticks_per_second().max(1)
}

/// A local socket's stream (watchman's).
pub type LocalStream = std::os::unix::net::UnixStream;

/// Connect to the local socket at `path`.
pub fn connect_local(path: impl AsRef<Path>) -> io::Result<LocalStream> {
    LocalStream::connect(path)
}

/// Take the process's stdin and stdout for a protocol (`gate mcp`): the
/// two returned files are copies of them, and the streams themselves are
/// moved aside — stdin becomes `/dev/null` (nothing else can read the
/// requests) and stdout a copy of stderr (a stray write, or a child's,
/// never reaches the client).
pub fn take_stdio() -> io::Result<(File, File)> {
    let input = rustix::io::fcntl_dupfd_cloexec(io::stdin(), 3)?;
    let output = rustix::io::fcntl_dupfd_cloexec(io::stdout(), 3)?;
    let null = rustix::fs::open("/dev/null", OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())?;
    rustix::stdio::dup2_stdin(&null)?;
    rustix::stdio::dup2_stdout(io::stderr())?;
    Ok((input.into(), output.into()))
}

/// The signal that ended a child, if one did.
pub fn signal_of(status: &std::process::ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    /// The mapping of this process that holds `addr`, as `/proc/self/smaps`
    /// gives it: its length and its resident bytes.
    fn mapping_holding(addr: usize) -> (usize, usize) {
        let smaps = std::fs::read_to_string("/proc/self/smaps").expect("/proc/self/smaps");
        let mut ours = None;
        for line in smaps.lines() {
            let first = line.split_whitespace().next().unwrap_or("");
            if let Some((start, end)) = first.split_once('-')
                && let (Ok(start), Ok(end)) = (
                    usize::from_str_radix(start, 16),
                    usize::from_str_radix(end, 16),
                )
            {
                ours = (start <= addr && addr < end).then_some(end - start);
            } else if let (Some(len), Some(rss)) = (ours, line.strip_prefix("Rss:")) {
                let kib: usize = rss
                    .trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse()
                    .expect("kB");
                return (len, kib * 1024);
            }
        }
        panic!("no mapping holds {addr:#x}");
    }

    /// The room made in a thread's arena is kept (its heap's writable part
    /// grows by it, so later allocations need no `mprotect`), and its pages
    /// are given back, not left resident.
    #[test]
    fn room_made_in_a_threads_arena_is_kept_and_its_pages_given_back() {
        std::thread::spawn(|| {
            // A small allocation can come from the main arena (glibc's
            // per-thread cache); a kilobyte comes from the thread's own.
            let probe: Vec<u8> = Vec::with_capacity(1024);
            let addr = probe.as_ptr() as usize;
            let (before, resident_before) = mapping_holding(addr);
            // An arena's heap holds 64 MiB at most; a thread of this test
            // run may reuse an arena that already grew.
            assert!(before < 48 << 20, "{before}");
            let room = before + (8 << 20);
            super::make_room_in_thread_arena(room);
            let (after, resident_after) = mapping_holding(addr);
            assert!(
                after >= before + (7 << 20),
                "the heap's writable part grew {before} -> {after}"
            );
            assert!(
                resident_after <= resident_before + (1 << 20),
                "resident {resident_before} -> {resident_after}"
            );
            drop(probe);
        })
        .join()
        .expect("thread");
    }
}
