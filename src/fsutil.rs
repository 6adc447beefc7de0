//! Durable file writes and advisory locks.
//!
//! Every file gate writes (task files, the active pointer, hooks, receipts)
//! goes through [`write_atomic`]: a temporary file in the same directory,
//! written whole, fsynced, renamed over the target, and the directory fsynced.
//! A crash leaves the old file or the new one, never a torn one. Writers that
//! read-modify-write hold a [`Lock`] so that concurrent runs lose nothing.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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

/// Replace `path` with `bytes` atomically (same directory temp file, fsync,
/// rename, fsync of the directory). Creates missing parent directories.
/// `mode` sets Unix permission bits on the new file (e.g. `0o755` for hooks).
pub fn write_atomic(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<(), FsError> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| FsError::new(dir, "create directory", e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp.{}.{}", std::process::id(), unique()));
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| FsError::new(&tmp, "create temporary file", e))?;
        file.write_all(bytes)
            .map_err(|e| FsError::new(&tmp, "write", e))?;
        if let Some(mode) = mode {
            use std::os::unix::fs::PermissionsExt;
            file.set_permissions(fs::Permissions::from_mode(mode))
                .map_err(|e| FsError::new(&tmp, "set permissions", e))?;
        }
        file.sync_all()
            .map_err(|e| FsError::new(&tmp, "fsync", e))?;
        fs::rename(&tmp, path).map_err(|e| FsError::new(path, "replace", e))?;
        if let Ok(d) = File::open(dir) {
            // Directory fsync makes the rename durable; some file systems
            // refuse it, and the rename is already atomic without it.
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
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
pub fn lock(path: &Path, timeout: Duration) -> Result<Lock, LockError> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| FsError::new(dir, "create directory", e))?;
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| FsError::new(path, "open lock file", e))?;
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

/// Read a file that may be absent: `Ok(None)` when it does not exist.
pub fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, FsError> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(FsError::new(path, "read", e)),
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
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o755
        );
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
                        let mut text = read_optional(file).unwrap().unwrap_or_default();
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
