//! Everything gate asks of the operating system beyond what `std` offers on
//! every platform: directory handles (`openat`, `statat`, `linkat`…), opens
//! that neither follow a symbolic link nor block on a FIFO, file modes, the
//! full `lstat`, local sockets, the process's standard streams and a
//! child's signal. The rest of gate names none of `std::os::unix`, `rustix`
//! or `libc` (tests/integration/architecture.rs holds it to that), so a
//! build for another platform is a target away.
//!
//! Two implementations answer the same calls:
//!
//! - [`unix`](self) (Linux, macOS, the BSDs): file-descriptor-relative
//!   calls through `rustix`, race-free — a name is looked up in the
//!   directory handle it was found in, a link or FIFO swapped in between a
//!   look and an open fails the open instead of being followed or waited
//!   on;
//! - `portable`: `std` alone, path-based — the same checks made by looking
//!   first (`symlink_metadata`) and opening after, which a concurrent swap
//!   can slip between. It is what a Windows build uses, and what
//!   `--features portable` forces on any platform so that Linux CI builds
//!   and tests it (docs/platforms.md says what differs).

use std::borrow::Cow;
use std::fs;
use std::io;
use std::path::Path;

#[cfg(all(unix, not(feature = "portable")))]
mod unix;
#[cfg(all(unix, not(feature = "portable")))]
pub use unix::*;

#[cfg(any(not(unix), feature = "portable"))]
mod portable;
#[cfg(any(not(unix), feature = "portable"))]
pub use portable::*;

/// An error from the operating system, cheap to copy and to keep (the
/// stat pass stores one per path), with the few cases gate tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OsError(Inner);

impl OsError {
    /// Nothing at the path.
    pub fn is_not_found(self) -> bool {
        self.0.is_not_found()
    }

    /// A component that should be a directory is not one.
    pub fn is_not_dir(self) -> bool {
        self.0.is_not_dir()
    }

    /// The path already exists (an exclusive create or a link).
    pub fn is_exists(self) -> bool {
        self.0.is_exists()
    }

    /// A rename or link across file systems.
    pub fn is_cross_device(self) -> bool {
        self.0.is_cross_device()
    }

    /// A symbolic link met where none is followed.
    pub fn is_link(self) -> bool {
        self.0.is_link()
    }
}

impl From<OsError> for io::Error {
    fn from(e: OsError) -> io::Error {
        e.0.into_io()
    }
}

impl std::fmt::Display for OsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        io::Error::from(*self).fmt(f)
    }
}

/// What kind of file a path is, told by its mode or its metadata.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    Regular,
    Directory,
    Symlink,
    Fifo,
    Socket,
    CharDevice,
    BlockDevice,
    Unknown,
}

impl FileKind {
    /// The kind a POSIX `st_mode` names (the bits are the same on every
    /// unix; the portable [`Stat`] makes its modes with them too).
    pub fn from_mode(mode: u32) -> FileKind {
        match mode & 0o170_000 {
            0o100_000 => FileKind::Regular,
            0o040_000 => FileKind::Directory,
            0o120_000 => FileKind::Symlink,
            0o010_000 => FileKind::Fifo,
            0o140_000 => FileKind::Socket,
            0o020_000 => FileKind::CharDevice,
            0o060_000 => FileKind::BlockDevice,
            _ => FileKind::Unknown,
        }
    }

    /// The `st_mode` type bits of this kind ([`FileKind::from_mode`]'s
    /// inverse; 0 for [`FileKind::Unknown`]).
    pub fn mode_bits(self) -> u32 {
        match self {
            FileKind::Regular => 0o100_000,
            FileKind::Directory => 0o040_000,
            FileKind::Symlink => 0o120_000,
            FileKind::Fifo => 0o010_000,
            FileKind::Socket => 0o140_000,
            FileKind::CharDevice => 0o020_000,
            FileKind::BlockDevice => 0o060_000,
            FileKind::Unknown => 0,
        }
    }

    /// The kind `meta` (not following a link) describes.
    pub fn of(meta: &fs::Metadata) -> FileKind {
        let t = meta.file_type();
        if t.is_symlink() {
            FileKind::Symlink
        } else if t.is_file() {
            FileKind::Regular
        } else if t.is_dir() {
            FileKind::Directory
        } else {
            special(&t)
        }
    }

    /// How errors name it: "a FIFO", "a symbolic link"…
    pub fn name(self) -> &'static str {
        match self {
            FileKind::Regular => "a regular file",
            FileKind::Directory => "a directory",
            FileKind::Symlink => "a symbolic link",
            FileKind::Fifo => "a FIFO",
            FileKind::Socket => "a socket",
            FileKind::CharDevice => "a character device",
            FileKind::BlockDevice => "a block device",
            FileKind::Unknown => "an unknown kind of file",
        }
    }
}

/// A second since the epoch and its nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Time {
    pub sec: i64,
    pub nsec: i64,
}

impl Time {
    /// A file's modification time.
    pub fn mtime_of(meta: &fs::Metadata) -> Time {
        meta.modified().map(Time::of).unwrap_or_default()
    }

    /// `t` as seconds and nanoseconds around the epoch.
    pub fn of(t: std::time::SystemTime) -> Time {
        match t.duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => Time {
                sec: i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
                nsec: i64::from(d.subsec_nanos()),
            },
            Err(before) => {
                let d = before.duration();
                let sec = -i64::try_from(d.as_secs()).unwrap_or(i64::MAX);
                match d.subsec_nanos() {
                    0 => Time { sec, nsec: 0 },
                    n => Time {
                        sec: sec - 1,
                        nsec: 1_000_000_000 - i64::from(n),
                    },
                }
            }
        }
    }
}

/// What `lstat` says about a file, as far as its content is concerned. The
/// portable implementation fills what `std` can tell (size, times, kind,
/// read-only) and leaves the inode, device and link count at 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    pub size: u64,
    pub mtime: Time,
    pub ctime: Time,
    pub ino: u64,
    pub dev: u64,
    pub mode: u32,
    /// Hard links to the inode: a monitor sees a write only under the
    /// name it was made through.
    pub nlink: u64,
}

impl Stat {
    /// The kind of file this is.
    pub fn kind(&self) -> FileKind {
        FileKind::from_mode(self.mode)
    }
}

/// One step of a path: a plain name, never `..`, `/` or empty.
fn plain(name: &Path) -> bool {
    let mut parts = name.components();
    matches!(
        (parts.next(), parts.next()),
        (Some(std::path::Component::Normal(_)), None)
    )
}

/// A repository path's bytes (`/`-separated, as git stores them) as a
/// `Path`: borrowed where the platform's paths are bytes, or the bytes are
/// UTF-8; else the bytes that are not replaced (such a path cannot exist on
/// a platform whose paths are Unicode).
pub fn path_from_bytes(bytes: &[u8]) -> Cow<'_, Path> {
    match os_path(bytes) {
        Some(path) => Cow::Borrowed(path),
        None => Cow::Owned(String::from_utf8_lossy(bytes).into_owned().into()),
    }
}

/// The bytes of a path as gate compares and hashes them: the platform's
/// own where its paths are bytes, UTF-8 (WTF-8 for ill-formed names)
/// where they are not.
pub fn path_bytes(path: &Path) -> &[u8] {
    path.as_os_str().as_encoded_bytes()
}

/// `fs::canonicalize`, in the form people and other programs read: on
/// Windows without the `\\?\` prefix where the path is a plain drive path
/// (`C:\work\repo`, as `dunce` does), which every Windows program takes.
pub fn canonicalize(path: &Path) -> io::Result<std::path::PathBuf> {
    let real = fs::canonicalize(path)?;
    match real
        .to_str()
        .and_then(|p| plain_drive_path(p, cfg!(windows)))
    {
        Some(plain) => Ok(std::path::PathBuf::from(plain)),
        None => Ok(real),
    }
}

/// `path` without `\\?\` when it is `\\?\X:\…` on Windows.
fn plain_drive_path(path: &str, windows: bool) -> Option<&str> {
    let rest = path.strip_prefix(r"\\?\").filter(|_| windows)?;
    let bytes = rest.as_bytes();
    let drive =
        bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && bytes[2] == b'\\';
    drive.then_some(rest)
}

/// `path` as a hook script's `sh` takes it: as it is on unix; on
/// Windows, where Git for Windows' `sh` runs the hooks, without the
/// `\\?\` prefix `canonicalize` gives and with `/` for `\`
/// (`C:/Users/me/gate.exe`, which that `sh` runs and tests with `-x`).
pub fn path_for_sh(path: &str) -> Cow<'_, str> {
    shell_path(path, cfg!(windows))
}

fn shell_path(path: &str, windows: bool) -> Cow<'_, str> {
    if !windows {
        return Cow::Borrowed(path);
    }
    let path = match path.strip_prefix(r"\\?\") {
        Some(rest) => match rest.strip_prefix(r"UNC\") {
            Some(share) => Cow::Owned(format!(r"\\{share}")),
            None => Cow::Borrowed(rest),
        },
        None => Cow::Borrowed(path),
    };
    Cow::Owned(path.replace('\\', "/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_drive_paths_lose_the_verbatim_prefix_on_windows_only() {
        assert_eq!(
            plain_drive_path(r"\\?\C:\work\repo", true),
            Some(r"C:\work\repo")
        );
        assert_eq!(plain_drive_path(r"\\?\C:\work\repo", false), None);
        assert_eq!(plain_drive_path(r"\\?\UNC\server\share", true), None);
        assert_eq!(plain_drive_path(r"C:\work", true), None);
        assert_eq!(plain_drive_path("/home/me", true), None);
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(
            canonicalize(tmp.path()).unwrap(),
            fs::canonicalize(tmp.path()).unwrap()
        );
    }

    #[test]
    fn hook_paths_are_what_git_for_windows_sh_runs() {
        assert_eq!(shell_path("/usr/bin/gate", false), "/usr/bin/gate");
        assert_eq!(shell_path(r"C:\a\b", false), r"C:\a\b");
        assert_eq!(
            shell_path(r"\\?\C:\Users\me\.cargo\bin\gate.exe", true),
            "C:/Users/me/.cargo/bin/gate.exe"
        );
        assert_eq!(shell_path(r"C:\tools\gate.exe", true), "C:/tools/gate.exe");
        assert_eq!(
            shell_path(r"\\?\UNC\server\share\gate.exe", true),
            "//server/share/gate.exe"
        );
    }

    #[test]
    fn a_mode_names_its_kind_and_back() {
        for kind in [
            FileKind::Regular,
            FileKind::Directory,
            FileKind::Symlink,
            FileKind::Fifo,
            FileKind::Socket,
            FileKind::CharDevice,
            FileKind::BlockDevice,
        ] {
            assert_eq!(FileKind::from_mode(kind.mode_bits() | 0o644), kind);
        }
        assert_eq!(FileKind::from_mode(0), FileKind::Unknown);
    }

    #[test]
    fn times_before_the_epoch_keep_nanoseconds_positive() {
        use std::time::{Duration, UNIX_EPOCH};
        let t = Time::of(UNIX_EPOCH - Duration::new(2, 250_000_000));
        assert_eq!(
            t,
            Time {
                sec: -3,
                nsec: 750_000_000
            }
        );
        let t = Time::of(UNIX_EPOCH + Duration::new(5, 7));
        assert_eq!(t, Time { sec: 5, nsec: 7 });
    }

    #[test]
    fn repository_paths_become_paths_and_bytes_again() {
        let path = path_from_bytes(b"src/main.rs");
        assert!(matches!(path, Cow::Borrowed(_)));
        assert_eq!(path_bytes(&path), b"src/main.rs");
        // Not UTF-8: kept where paths are bytes, replaced where they are not.
        let odd = path_from_bytes(b"a\xffb");
        match IMPLEMENTATION {
            "unix" => assert_eq!(path_bytes(&odd), b"a\xffb"),
            _ => assert_eq!(path_bytes(&odd), "a\u{fffd}b".as_bytes()),
        }
    }

    #[test]
    fn only_a_single_plain_name_is_a_step() {
        assert!(plain(Path::new("a")));
        assert!(!plain(Path::new("a/b")));
        assert!(!plain(Path::new("..")));
        assert!(!plain(Path::new("")));
        assert!(!plain(Path::new("/")));
    }

    fn tree() -> tempfile::TempDir {
        let tmp = tempfile::tempdir().unwrap();
        fs::create_dir(tmp.path().join("d")).unwrap();
        fs::write(tmp.path().join("d/f"), b"hello").unwrap();
        tmp
    }

    #[test]
    fn a_directory_handle_looks_opens_and_lists_by_name() {
        let tmp = tree();
        let root = Dir::open(tmp.path()).unwrap();
        let d = root.sub(Path::new("d")).unwrap();
        assert_eq!(d.kind_of(Path::new("f")), Some(FileKind::Regular));
        assert_eq!(root.kind_of(Path::new("d")), Some(FileKind::Directory));
        assert_eq!(d.kind_of(Path::new("absent")), None);
        let stat = root.stat(b"d/f").unwrap();
        assert_eq!((stat.size, stat.kind()), (5, FileKind::Regular));
        assert!(root.stat(b"d/absent").unwrap_err().is_not_found());
        assert!(root.stat(b"d/f/x").unwrap_err().is_not_dir());
        let mut file = d.open_file(Path::new("f")).unwrap();
        assert_eq!(file_stat(&file).unwrap(), stat);
        let mut text = String::new();
        io::Read::read_to_string(&mut file, &mut text).unwrap();
        assert_eq!(text, "hello");
        assert!(d.open_file(Path::new("absent")).unwrap_err().is_not_found());
        assert_eq!(d.names().unwrap(), vec![std::ffi::OsString::from("f")]);
        assert!(root.sub(Path::new("d/f")).is_err(), "one step at a time");
    }

    #[test]
    fn a_directory_handle_creates_renames_links_and_removes() {
        let tmp = tree();
        let root = Dir::open(tmp.path()).unwrap();
        root.mkdir(Path::new("e")).unwrap();
        assert!(root.mkdir(Path::new("e")).unwrap_err().is_exists());
        let e = root.sub(Path::new("e")).unwrap();
        let mut new = e.create_new(Path::new("t")).unwrap();
        io::Write::write_all(&mut new, b"x").unwrap();
        drop(new);
        assert!(e.create_new(Path::new("t")).unwrap_err().is_exists());
        let d = root.sub(Path::new("d")).unwrap();
        e.rename(Path::new("t"), &d, Path::new("f")).unwrap();
        assert_eq!(fs::read(tmp.path().join("d/f")).unwrap(), b"x");
        assert!(e.link(Path::new("absent"), &d, Path::new("g")).is_err());
        d.link(Path::new("f"), &e, Path::new("g")).unwrap();
        assert!(
            d.link(Path::new("f"), &e, Path::new("g"))
                .unwrap_err()
                .is_exists()
        );
        e.unlink(Path::new("g")).unwrap();
        assert!(e.unlink(Path::new("g")).unwrap_err().is_not_found());
        d.sync();
        assert!(root.same_device(&d) || IMPLEMENTATION == "portable");
    }

    #[cfg(unix)]
    #[test]
    fn no_link_is_followed_and_no_fifo_waited_on() {
        let tmp = tree();
        let root = Dir::open(tmp.path()).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("d"), tmp.path().join("ld")).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("d/f"), tmp.path().join("lf")).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            tmp.path().join("fifo"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        assert_eq!(root.kind_of(Path::new("ld")), Some(FileKind::Symlink));
        assert_eq!(root.kind_of(Path::new("fifo")), Some(FileKind::Fifo));
        assert!(root.sub(Path::new("ld")).is_err());
        assert!(root.open_file(Path::new("lf")).unwrap_err().is_link());
        // Opens at once (or is refused) instead of waiting for a writer.
        match root.open_file(Path::new("fifo")) {
            Ok(file) => assert!(!file.metadata().unwrap().is_file()),
            Err(e) => assert!(!e.is_not_found()),
        }
        assert_eq!(root.stat(b"ld").unwrap().kind(), FileKind::Symlink);
        assert!(open_writable(&tmp.path().join("lf"), false).is_err());
        assert!(open_writable(&tmp.path().join("fifo"), false).is_err());
        let log = tmp.path().join("log");
        let file = open_writable(&log, true).unwrap();
        assert!(file.metadata().unwrap().is_file());
    }

    #[test]
    fn executable_bits_are_set_and_seen() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("hook");
        let file = fs::File::create(&path).unwrap();
        set_mode(&file, 0o755).unwrap();
        drop(file);
        assert!(is_executable(&fs::metadata(&path).unwrap()));
        if EXEC_BITS {
            let file = fs::File::options().write(true).open(&path).unwrap();
            set_mode(&file, 0o644).unwrap();
            assert!(!is_executable(&fs::metadata(&path).unwrap()));
        }
        assert!(!is_executable(&fs::metadata(tmp.path()).unwrap()));
    }

    #[test]
    fn a_stat_of_metadata_agrees_with_a_stat_by_handle() {
        let tmp = tree();
        let root = Dir::open(tmp.path()).unwrap();
        let by_handle = root.stat(b"d/f").unwrap();
        let meta = fs::symlink_metadata(tmp.path().join("d/f")).unwrap();
        assert_eq!(Stat::of(&meta), by_handle);
        assert_eq!(Time::mtime_of(&meta), by_handle.mtime);
    }
}
