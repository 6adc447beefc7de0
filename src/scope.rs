//! The scope check (docs/concepts.md#the-checks): every changed path lies in the task's scope.
//!
//! A task's scope is its `scope` globs plus its own task file. Globs use the
//! globset dialect with `literal_separator`: `*` and `?` stay within one path
//! component, `**` crosses components, `{a,b}` and `[ab]` work. A pattern
//! also covers everything below a directory it matches, as in `.gitignore`:
//! `docs` and `src/*` both cover `src/a/b.rs`-style descendants.
//!
//! Pure: it takes changes and returns findings; it reads nothing itself.

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::git::{Change, ChangeKind};
use crate::path::RepoPath;
use crate::report::{Finding, Subject};

pub const CHECK: &str = "scope";

/// Compile one scope or issue-path glob: the plan's one dialect.
pub fn compile_glob(pattern: &str) -> Result<Glob, String> {
    crate::plan::compile_glob(pattern)
}

/// A compiled task scope.
#[derive(Debug, Clone)]
pub struct Scope {
    set: GlobSet,
    task_file: RepoPath,
}

impl Scope {
    /// The scope of task `task_id` with `patterns`; its own task file is always in scope.
    pub fn new(patterns: &[String], task_id: &str) -> Result<Scope, String> {
        let mut builder = GlobSetBuilder::new();
        for p in patterns {
            builder.add(compile_glob(p)?);
        }
        let set = builder.build().map_err(|e| e.to_string())?;
        let task_file = RepoPath::from(format!(".gate/tasks/{task_id}.md").as_str());
        Ok(Scope { set, task_file })
    }

    /// Whether `path` (or a directory above it) is matched by the scope.
    pub fn contains(&self, path: &RepoPath) -> bool {
        if *path == self.task_file {
            return true;
        }
        let bytes = path.as_bytes();
        if self.set.is_match(path.as_path()) {
            return true;
        }
        // Ancestor directories: a pattern matching a directory covers what is below it.
        bytes
            .iter()
            .enumerate()
            .filter(|&(_, b)| *b == b'/')
            .any(|(i, _)| {
                self.set
                    .is_match(RepoPath::new(bytes[..i].to_vec()).as_path())
            })
    }
}

/// One path of one change that lies outside the scope, with its role.
fn outside<'a>(scope: &Scope, change: &'a Change) -> Vec<(&'a RepoPath, &'static str)> {
    let mut out = Vec::new();
    if let Some(from) = &change.from
        && !scope.contains(from)
    {
        out.push((from, "renamed_from"));
    }
    if !scope.contains(&change.path) {
        let role = if change.kind == ChangeKind::Renamed {
            "renamed_to"
        } else {
            change.kind.as_str()
        };
        out.push((&change.path, role));
    }
    out
}

/// `path` as `gate task scope add` takes it from any directory (`':/PATH'`),
/// or `':/PATH'` itself when the path would not survive the shell's quotes.
pub fn scope_add_arg(path: &RepoPath) -> String {
    match path.to_str() {
        Some(p) if !p.contains('\'') && !p.chars().any(char::is_control) => format!("':/{p}'"),
        _ => "':/PATH'".to_string(),
    }
}

/// Findings for changes outside the scope of task `task_id`. `commit` is
/// attached when the changes come from a commit (provenance reuses this).
pub fn check_changes(
    scope: &Scope,
    task_id: &str,
    changes: &[Change],
    commit: Option<&str>,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for change in changes {
        for (path, role) in outside(scope, change) {
            let place = match commit {
                Some(c) => format!(" in commit {}", &c[..c.len().min(12)]),
                None => String::new(),
            };
            let message = format!(
                "{path} ({}){place} is outside the scope of task {task_id}",
                role.replace('_', " ")
            );
            let decide = format!(
                "add it to the task's scope (`gate task scope add {} --because \"…\"`), move this change to a task whose scope covers it, or leave it out of the commit",
                scope_add_arg(path)
            );
            findings.push(
                Finding::blocker(CHECK, "path_outside_scope", message, decide).with_subject(
                    Subject {
                        commit: commit.map(str::to_string),
                        path: Some(path.clone()),
                        change: Some(role),
                        task: Some(task_id.to_string()),
                        ..Subject::default()
                    },
                ),
            );
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::EntryKind;

    fn scope(p: &[&str]) -> Scope {
        Scope::new(&p.iter().map(|s| s.to_string()).collect::<Vec<_>>(), "T-1").unwrap()
    }

    #[test]
    fn globs_respect_separators_and_cover_descendants() {
        let s = scope(&["src/*.rs", "docs", "tests/**/golden/*"]);
        assert!(s.contains(&"src/a.rs".into()));
        assert!(!s.contains(&"src/sub/a.rs".into()));
        assert!(s.contains(&"docs/x/y.md".into()));
        assert!(s.contains(&"tests/a/b/golden/x.txt".into()));
        assert!(!s.contains(&"README.md".into()));
        assert!(!s.contains(&"docsx/a".into()));
        assert!(s.contains(&".gate/tasks/T-1.md".into()));
        assert!(!s.contains(&".gate/tasks/T-2.md".into()));
    }

    #[test]
    fn non_utf8_paths_match_by_bytes() {
        let s = scope(&["data/**"]);
        assert!(s.contains(&RepoPath::new(b"data/bad\xff.bin".to_vec())));
        assert!(!s.contains(&RepoPath::new(b"bad\xff/data".to_vec())));
    }

    #[test]
    fn bad_globs_are_refused_with_reason() {
        for bad in ["/abs", "../up", "a/../b", "src/[", ""] {
            assert!(compile_glob(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn both_sides_of_a_rename_are_checked() {
        let s = scope(&["src/**"]);
        let change = Change {
            kind: ChangeKind::Renamed,
            path: "src/new.rs".into(),
            from: Some("lib/old.rs".into()),
            old: Some(EntryKind::File),
            new: Some(EntryKind::File),
        };
        let f = check_changes(&s, "T-1", &[change], Some("abc"));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].subject.change, Some("renamed_from"));
        assert_eq!(f[0].subject.path, Some("lib/old.rs".into()));
    }
}
