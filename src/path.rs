//! Repository-relative paths as git stores them: raw bytes, `/`-separated.
//!
//! Git paths need not be UTF-8 and may hold newlines, quotes or control
//! characters. `RepoPath` keeps the exact bytes for matching and hashing and
//! offers two renderings: [`RepoPath::quoted`] for people (git-style C quoting
//! when needed) and [`RepoPath::lossy`] plus [`RepoPath::is_utf8`] for JSON.
//!
//! [`from_cwd`] is the one place a path or glob given on the command line
//! becomes repository-relative: from the current directory, as git reads a
//! pathspec, or from the root after `:/` (docs/tasks.md).

use std::fmt;
use std::path::Path;

/// A path relative to the repository root, exactly as git records it.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RepoPath(Vec<u8>);

impl RepoPath {
    pub fn new(bytes: impl Into<Vec<u8>>) -> RepoPath {
        RepoPath(bytes.into())
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The path as a `Path` for the file system and for glob matching.
    pub fn as_path(&self) -> std::borrow::Cow<'_, Path> {
        crate::platform::path_from_bytes(&self.0)
    }

    pub fn to_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.0).ok()
    }

    pub fn is_utf8(&self) -> bool {
        self.to_str().is_some()
    }

    /// UTF-8 text with invalid bytes replaced; exact whenever [`is_utf8`](Self::is_utf8).
    pub fn lossy(&self) -> String {
        String::from_utf8_lossy(&self.0).into_owned()
    }

    /// Whether the path is `dir` itself or lies below it (`dir` without a trailing slash).
    pub fn is_under(&self, dir: &str) -> bool {
        let dir = dir.trim_end_matches('/').as_bytes();
        self.0 == dir || (self.0.starts_with(dir) && self.0.get(dir.len()) == Some(&b'/'))
    }

    /// The path for people: as is when plain, else double-quoted with C escapes
    /// for control characters, quotes, backslashes and bytes that are not UTF-8
    /// (like git with `core.quotePath=false`).
    pub fn quoted(&self) -> String {
        quote_bytes(&self.0)
    }
}

impl fmt::Display for RepoPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.quoted())
    }
}

impl fmt::Debug for RepoPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RepoPath({})", quote_bytes(&self.0))
    }
}

impl From<&str> for RepoPath {
    fn from(s: &str) -> RepoPath {
        RepoPath(s.as_bytes().to_vec())
    }
}

/// A path or glob given on the command line (`--scope`, `--path`), made
/// repository-relative the way git reads a pathspec: relative to the
/// current directory, whose path from the work tree's root is `prefix`
/// (`""` at the root, `src/export` below it), or from the root when it
/// starts with `:/`. `.` and `..` components are resolved; one that climbs
/// above the root, an absolute path, other pathspec magic (`:!`, `:(…)`)
/// and a path naming the root itself are errors, each saying what to write
/// instead. Glob characters pass through: `export/**` given from `src/` is
/// `src/export/**`.
pub fn from_cwd(prefix: &str, given: &str) -> Result<String, String> {
    let (base, rest) = match given.strip_prefix(":/") {
        Some(rest) => ("", rest),
        None if given.starts_with(':') => {
            return Err(format!(
                "{given:?}: the only pathspec magic understood is `:/` (from the repository root)"
            ));
        }
        None if given.starts_with('/') => {
            return Err(format!(
                "{given:?} is absolute; give it relative to the current directory, or from the \
                 repository root as `:/PATH`"
            ));
        }
        None => (prefix, given),
    };
    if given.is_empty() {
        return Err("the path is empty".into());
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in base.split('/').chain(rest.split('/')) {
        match part {
            "" | "." => {}
            ".." => match parts.pop() {
                Some(up) if is_glob(up) => {
                    return Err(format!(
                        "{given:?}: `..` follows the glob component {up:?}, which names no one \
                         directory"
                    ));
                }
                Some(_) => {}
                None => {
                    return Err(format!(
                        "{given:?} climbs out of the repository (the current directory is {})",
                        if prefix.is_empty() {
                            "its root".to_string()
                        } else {
                            format!("{prefix:?} from its root")
                        }
                    ));
                }
            },
            part => parts.push(part),
        }
    }
    if parts.is_empty() {
        return Err(format!(
            "{given:?} names the repository root itself; write `:/**` for everything in it"
        ));
    }
    Ok(parts.join("/"))
}

/// Whether a path component holds a glob character.
fn is_glob(part: &str) -> bool {
    part.contains(['*', '?', '[', '{', '\\'])
}

/// Git-style quoting: plain text stays as is; anything with a control
/// character, `"`, `\` or invalid UTF-8 is wrapped in quotes and escaped.
pub fn quote_bytes(bytes: &[u8]) -> String {
    let needs = std::str::from_utf8(bytes).map_or(true, |s| {
        s.chars().any(|c| c.is_control() || c == '"' || c == '\\')
    });
    if !needs {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let mut out = String::from("\"");
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                c if c.is_control() => {
                    let mut buf = [0u8; 4];
                    for b in c.encode_utf8(&mut buf).bytes() {
                        out.push_str(&format!("\\{b:03o}"));
                    }
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\{b:03o}"));
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_paths_are_not_quoted() {
        assert_eq!(RepoPath::from("src/a b.rs").quoted(), "src/a b.rs");
        assert_eq!(RepoPath::from("docs/é.md").quoted(), "docs/é.md");
    }

    #[test]
    fn special_bytes_are_escaped() {
        assert_eq!(RepoPath::from("a\"b").quoted(), r#""a\"b""#);
        assert_eq!(RepoPath::from("a\nb").quoted(), r#""a\nb""#);
        assert_eq!(RepoPath::new(b"a\xffb".to_vec()).quoted(), r#""a\377b""#);
        assert_eq!(RepoPath::from("a\x01").quoted(), r#""a\001""#);
    }

    #[test]
    fn a_given_path_is_relative_to_the_current_directory() {
        assert_eq!(from_cwd("", "src/a.rs").unwrap(), "src/a.rs");
        assert_eq!(from_cwd("src", "export/**").unwrap(), "src/export/**");
        assert_eq!(from_cwd("src/deep", "../a.rs").unwrap(), "src/a.rs");
        assert_eq!(from_cwd("src", "./x/./y/").unwrap(), "src/x/y");
        assert_eq!(from_cwd("src", ".").unwrap(), "src");
        assert_eq!(from_cwd("src", "..//docs").unwrap(), "docs");
    }

    #[test]
    fn a_colon_slash_prefix_starts_at_the_root() {
        assert_eq!(from_cwd("src/deep", ":/src/**").unwrap(), "src/**");
        assert_eq!(from_cwd("", ":/docs").unwrap(), "docs");
        assert_eq!(from_cwd("src", ":/a/../b").unwrap(), "b");
    }

    #[test]
    fn a_path_out_of_the_repository_is_an_error() {
        let e = from_cwd("src", "../../x").unwrap_err();
        assert!(e.contains("climbs out of the repository"), "{e}");
        assert!(from_cwd("", "..").is_err());
        assert!(from_cwd("src", ":/../x").is_err());
    }

    #[test]
    fn what_names_no_repository_path_is_an_error_saying_what_to_write() {
        assert!(from_cwd("", "").unwrap_err().contains("empty"));
        assert!(from_cwd("", ".").unwrap_err().contains(":/**"));
        assert!(from_cwd("src", "..").unwrap_err().contains(":/**"));
        assert!(from_cwd("", ":/").unwrap_err().contains(":/**"));
        assert!(from_cwd("", "/etc/x").unwrap_err().contains("absolute"));
        assert!(from_cwd("", ":!x").unwrap_err().contains("`:/`"));
        assert!(from_cwd("", "src/**/../x").unwrap_err().contains("glob"));
    }

    #[test]
    fn is_under_respects_component_boundaries() {
        let p = RepoPath::from(".gate/tasks/T-1.md");
        assert!(p.is_under(".gate"));
        assert!(p.is_under(".gate/"));
        assert!(!RepoPath::from(".gatekeeper/x").is_under(".gate"));
        assert!(RepoPath::from(".gate").is_under(".gate"));
    }
}
