//! Reading gate's own files and the one error type for everything that can go
//! wrong while loading them.
//!
//! Owns [`LoadError`] and the guarded read ([`read_text`] and friends, on
//! `crate::fsutil::read_within`): no symbolic link followed below the work
//! tree's root, a size cap checked before the file is read (and enforced
//! while reading), regular files only, opened without blocking (a FIFO must
//! not hang a hook), UTF-8 only, a leading BOM stripped. It does not parse: `yaml` turns text into models and `policy` and
//! `plan` validate them, all reporting through [`LoadError`].
//!
//! Every error names the file *as the caller gave it*: callers read
//! `<root>/.gate/plan.yaml` but show `.gate/plan.yaml`
//! ([`read_text_as`] takes both).

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use crate::fsutil::ReadError;

/// Largest file gate reads as configuration: 1 MiB.
pub const MAX_FILE_BYTES: u64 = crate::fsutil::Kind::GATE_FILE.max;

/// Why a configuration file could not be loaded.
///
/// Displayed as `file:line:column: key: message`, leaving out whatever is
/// unknown; callers turn it into an *unknown* outcome, never a pass.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file exists but could not be read (or is not a regular file).
    #[error("{}: cannot read: {source}", file.display())]
    Read { file: PathBuf, source: io::Error },
    /// The file is larger than [`MAX_FILE_BYTES`]; it was not read.
    #[error("{}: {size} bytes is over the 1 MiB ({MAX_FILE_BYTES}-byte) limit for gate's files", file.display())]
    TooLarge { file: PathBuf, size: u64 },
    /// The file is not UTF-8 text.
    #[error("{}: not UTF-8 text", file.display())]
    NotUtf8 { file: PathBuf },
    /// The text does not fit the closed schema: YAML syntax, an unknown key, a
    /// missing key or a wrong type.
    #[error("{}", located(file, *line, *column, key, message))]
    Schema {
        file: PathBuf,
        line: Option<usize>,
        column: Option<usize>,
        /// Key path such as `intents[0].criteria[1].evidence`; empty for the
        /// whole document.
        key: String,
        message: String,
    },
    /// The text fits the schema but a value is not acceptable (an id format, a
    /// duplicate, a path that escapes, a glob that does not compile).
    #[error("{}", located(file, *line, *column, key, message))]
    Invalid {
        file: PathBuf,
        line: Option<usize>,
        column: Option<usize>,
        key: String,
        message: String,
    },
    /// The document would expand past gate's limits (alias bombs, deep
    /// nesting); refused before it is built.
    #[error("{}: {message}", file.display())]
    TooComplex { file: PathBuf, message: String },
}

impl LoadError {
    /// The file the error is about, as the caller named it.
    pub fn file(&self) -> &Path {
        match self {
            LoadError::Read { file, .. }
            | LoadError::TooLarge { file, .. }
            | LoadError::NotUtf8 { file }
            | LoadError::Schema { file, .. }
            | LoadError::Invalid { file, .. }
            | LoadError::TooComplex { file, .. } => file,
        }
    }

    /// The 1-based line the error points at, when known.
    pub fn line(&self) -> Option<usize> {
        match self {
            LoadError::Schema { line, .. } | LoadError::Invalid { line, .. } => *line,
            _ => None,
        }
    }

    /// The key path the error is about; empty when it is about the whole file.
    pub fn key(&self) -> &str {
        match self {
            LoadError::Schema { key, .. } | LoadError::Invalid { key, .. } => key,
            _ => "",
        }
    }

    /// Move the reported line down by `lines`: for YAML embedded in a larger
    /// file (a task file's front matter starts on line 2).
    pub fn shift_lines(mut self, lines: usize) -> LoadError {
        if let LoadError::Schema { line: Some(l), .. } | LoadError::Invalid { line: Some(l), .. } =
            &mut self
        {
            *l += lines;
        }
        self
    }
}

/// `file:line:column: key: message`, leaving out what is unknown.
fn located(
    file: &Path,
    line: Option<usize>,
    column: Option<usize>,
    key: &str,
    message: &str,
) -> String {
    let mut out = file.display().to_string();
    if let Some(line) = line {
        let _ = write!(out, ":{line}");
        if let Some(column) = column {
            let _ = write!(out, ":{column}");
        }
    }
    out.push_str(": ");
    if !key.is_empty() && key != "." {
        out.push_str(key);
        out.push_str(": ");
    }
    out.push_str(message);
    out
}

/// Read `file` as gate configuration text and name it as given in errors.
pub fn read_text(file: &Path) -> Result<String, LoadError> {
    read_text_as(file, file)
}

/// Read the file at `path`, naming it `shown` in errors (a repository-relative
/// path such as `.gate/plan.yaml`).
///
/// Refuses anything but a regular file, files over [`MAX_FILE_BYTES`] (by
/// their metadata, before reading, and again while reading in case the file
/// grows) and text that is not UTF-8. A leading byte-order mark is dropped.
pub fn read_text_as(shown: &Path, path: &Path) -> Result<String, LoadError> {
    match read_optional_as(shown, path)? {
        Some(text) => Ok(text),
        None => Err(LoadError::Read {
            file: shown.to_path_buf(),
            source: io::Error::new(io::ErrorKind::NotFound, "no such file"),
        }),
    }
}

/// Like [`read_text_as`], but a missing file is `Ok(None)` rather than an
/// error (for files that are optional, like `.gate/policy.yaml`).
pub fn read_optional_as(shown: &Path, path: &Path) -> Result<Option<String>, LoadError> {
    let Some(bytes) = read_bytes_optional_as(shown, path)? else {
        return Ok(None);
    };
    let text = String::from_utf8(bytes).map_err(|_| LoadError::NotUtf8 {
        file: shown.to_path_buf(),
    })?;
    Ok(Some(strip_bom(text)))
}

/// The guarded read of [`read_optional_as`] (no symbolic link followed
/// below the work tree's root, a non-blocking open, regular files only,
/// the size cap: `crate::fsutil::read_within`) returning the bytes exactly
/// as stored: no UTF-8 check, no BOM stripped. For callers that compare a
/// file with a git blob byte for byte and judge a non-UTF-8 file themselves.
///
/// `path` is `<root>/<shown>` when `shown` is repository-relative: the walk
/// starts at that root, so a `.gate` or `.gate/tasks` that is a link is
/// refused, naming it.
pub fn read_bytes_optional_as(shown: &Path, path: &Path) -> Result<Option<Vec<u8>>, LoadError> {
    let (base, rel) = within(shown, path);
    let read_error = |source: io::Error| LoadError::Read {
        file: shown.to_path_buf(),
        source,
    };
    let shown_of = |p: &Path| match p.strip_prefix(base) {
        Ok(rel) => rel.to_path_buf(),
        Err(_) => p.to_path_buf(),
    };
    crate::fsutil::read_within(base, rel, crate::fsutil::Kind::GATE_FILE).map_err(|e| match e {
        ReadError::Io { source, .. } => read_error(source),
        ReadError::Link { path } => read_error(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is a symbolic link; gate reads its files only where the repository keeps them, never through a link: replace the link with the directory or file it points to",
                shown_of(&path).display()
            ),
        )),
        ReadError::NotRegular { .. } => read_error(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        )),
        ReadError::TooLarge { size, .. } => LoadError::TooLarge {
            file: shown.to_path_buf(),
            size,
        },
    })
}

/// The trusted directory and the path below it of the file `path`, shown
/// as `shown`: `<root>` and `shown` when `path` is `<root>/<shown>`, else
/// `path`'s directory and its name.
fn within<'p>(shown: &'p Path, path: &'p Path) -> (&'p Path, &'p Path) {
    if shown.is_relative() && path.ends_with(shown) {
        let below = shown.components().count();
        if let Some(base) = path.ancestors().nth(below) {
            return (base, shown);
        }
    }
    let base = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    (base, path.file_name().map_or(path, Path::new))
}

fn strip_bom(text: String) -> String {
    match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_owned(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    #[test]
    fn display_leaves_out_what_is_unknown() {
        let full = LoadError::Schema {
            file: ".gate/plan.yaml".into(),
            line: Some(3),
            column: Some(7),
            key: "checks[0].id".into(),
            message: "bad".into(),
        };
        assert_eq!(full.to_string(), ".gate/plan.yaml:3:7: checks[0].id: bad");
        let bare = LoadError::Invalid {
            file: ".gate/plan.yaml".into(),
            line: None,
            column: None,
            key: String::new(),
            message: "bad".into(),
        };
        assert_eq!(bare.to_string(), ".gate/plan.yaml: bad");
        let no_column = LoadError::Invalid {
            file: "p.yaml".into(),
            line: Some(2),
            column: None,
            key: "k".into(),
            message: "m".into(),
        };
        assert_eq!(no_column.to_string(), "p.yaml:2: k: m");
        assert_eq!(no_column.line(), Some(2));
        assert_eq!(no_column.key(), "k");
        assert_eq!(no_column.file(), Path::new("p.yaml"));
    }

    #[test]
    fn reads_text_and_strips_a_bom() {
        let dir = temp_dir();
        let path = dir.path().join("p.yaml");
        std::fs::write(&path, "\u{feff}a: 1\r\n").unwrap();
        assert_eq!(read_text(&path).unwrap(), "a: 1\r\n");
    }

    #[test]
    fn oversized_file_is_refused_by_its_size() {
        let dir = temp_dir();
        let path = dir.path().join("big.yaml");
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(MAX_FILE_BYTES + 1).unwrap();
        let err = read_text_as(Path::new(".gate/plan.yaml"), &path).unwrap_err();
        assert!(
            matches!(&err, LoadError::TooLarge { size, .. } if *size == MAX_FILE_BYTES + 1),
            "{err:?}"
        );
        assert!(
            err.to_string()
                .starts_with(".gate/plan.yaml: 1048577 bytes")
        );
        // Exactly at the limit is fine.
        std::fs::write(&path, vec![b'#'; MAX_FILE_BYTES as usize]).unwrap();
        assert_eq!(read_text(&path).unwrap().len() as u64, MAX_FILE_BYTES);
    }

    #[test]
    fn non_utf8_is_refused() {
        let dir = temp_dir();
        let path = dir.path().join("p.yaml");
        std::fs::write(&path, b"a: \xff\n").unwrap();
        let err = read_text_as(Path::new("p.yaml"), &path).unwrap_err();
        assert!(matches!(err, LoadError::NotUtf8 { .. }), "{err:?}");
        assert_eq!(err.to_string(), "p.yaml: not UTF-8 text");
    }

    #[test]
    fn bytes_come_back_as_stored_under_the_same_guards() {
        let dir = temp_dir();
        let path = dir.path().join("t.md");
        std::fs::write(&path, b"\xef\xbb\xbfa: \xff\n").unwrap();
        assert_eq!(
            read_bytes_optional_as(Path::new("t.md"), &path).unwrap(),
            Some(b"\xef\xbb\xbfa: \xff\n".to_vec())
        );
        let absent = dir.path().join("absent.md");
        assert!(
            read_bytes_optional_as(Path::new("x"), &absent)
                .unwrap()
                .is_none()
        );
        let err = read_bytes_optional_as(Path::new("d"), dir.path()).unwrap_err();
        assert_eq!(err.to_string(), "d: cannot read: not a regular file");
    }

    #[test]
    fn missing_file_is_none_or_a_read_error_naming_the_shown_path() {
        let dir = temp_dir();
        let path = dir.path().join("absent.yaml");
        assert!(read_optional_as(Path::new("x"), &path).unwrap().is_none());
        let err = read_text_as(Path::new(".gate/policy.yaml"), &path).unwrap_err();
        assert!(matches!(err, LoadError::Read { .. }));
        assert!(
            err.to_string()
                .starts_with(".gate/policy.yaml: cannot read")
        );
    }

    #[test]
    fn a_directory_is_not_a_regular_file() {
        let dir = temp_dir();
        let err = read_text_as(Path::new("d"), dir.path()).unwrap_err();
        assert_eq!(err.to_string(), "d: cannot read: not a regular file");
    }
}
