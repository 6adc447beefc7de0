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
use crate::verdict::{Finding, Subject};

pub const CHECK: &str = "scope";

/// Compile one scope or issue-path glob: the plan's one dialect.
pub fn compile_glob(pattern: &str) -> Result<Glob, String> {
    crate::plan::compile_glob(pattern)
}

/// A compiled task scope.
#[derive(Debug, Clone)]
pub struct Scope {
    set: GlobSet,
    /// The patterns, in the order the set holds them.
    patterns: Vec<String>,
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
        Ok(Scope {
            set,
            patterns: patterns.to_vec(),
            task_file,
        })
    }

    /// Whether `path` (or a directory above it) is matched by the scope.
    pub fn contains(&self, path: &RepoPath) -> bool {
        // `covering(path).is_some()`, without building each directory's
        // path or the list of every pattern matching it: the range walk asks
        // this of every path of every commit (docs/performance.md).
        if *path == self.task_file {
            return true;
        }
        let bytes = path.as_bytes();
        let upto = |end: usize| crate::platform::path_from_bytes(&bytes[..end]);
        self.set.is_match(path.as_path())
            || bytes
                .iter()
                .enumerate()
                .any(|(end, &b)| b == b'/' && self.set.is_match(upto(end)))
    }

    /// What puts `path` in the scope: the task's own file, or the first
    /// pattern matching it or a directory above it; `None` when nothing does.
    pub fn covering(&self, path: &RepoPath) -> Option<Cover<'_>> {
        if *path == self.task_file {
            return Some(Cover::TaskFile);
        }
        let bytes = path.as_bytes();
        // Ancestor directories: a pattern matching a directory covers what is below it.
        let ancestors = bytes
            .iter()
            .enumerate()
            .filter(|&(_, b)| *b == b'/')
            .map(|(i, _)| RepoPath::new(bytes[..i].to_vec()));
        std::iter::once(path.clone())
            .chain(ancestors)
            .filter_map(|p| self.set.matches(p.as_path()).into_iter().min())
            .min()
            .map(|i| Cover::Pattern(&self.patterns[i]))
    }
}

/// What puts a path in a task's scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cover<'s> {
    /// The task's own file, always in its scope.
    TaskFile,
    /// A scope pattern (recorded or added).
    Pattern(&'s str),
}

/// An open plan issue whose paths cover a path, and the intent it serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssueCover {
    pub issue: String,
    pub intent: Option<String>,
}

/// The answer to "may the task touch this path?" (`gate may-touch`, and the
/// agent hooks that refuse an edit before it is made).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touch {
    /// The path, repository-relative.
    pub path: RepoPath,
    /// `Pass` allowed, `Refused` outside the scope, `Unknown` not decidable
    /// (no task, an unreadable task or scope).
    pub verdict: crate::verdict::Outcome,
    /// The scope pattern that allows it (`.gate/tasks/ID.md` for the task's own file).
    pub pattern: Option<String>,
    /// The open plan issues whose paths cover it.
    pub issues: Vec<IssueCover>,
    /// Why, in a sentence.
    pub reason: String,
    /// For a refusal or an unknown: the action that gets the work through.
    pub decide: Option<String>,
}

impl Touch {
    /// `allowed`, `refused` or `unknown`, as JSON and people read it.
    pub fn verdict_word(&self) -> &'static str {
        match self.verdict {
            crate::verdict::Outcome::Pass => "allowed",
            crate::verdict::Outcome::Refused => "refused",
            crate::verdict::Outcome::Unknown => "unknown",
        }
    }
}

/// Judge one path against task `task_id`'s scope: allowed (with the pattern
/// that covers it) or refused (with the command that widens the scope, and
/// the issues that would cover it). Pure: the covering issues come in.
pub fn touch(scope: &Scope, task_id: &str, path: &RepoPath, issues: Vec<IssueCover>) -> Touch {
    use crate::verdict::Outcome;
    match scope.covering(path) {
        Some(cover) => {
            let (pattern, reason) = match cover {
                Cover::TaskFile => (
                    scope.task_file.lossy(),
                    format!("{path} is task {task_id}'s own file"),
                ),
                Cover::Pattern(p) => (
                    p.to_string(),
                    format!("{path} is in the scope of task {task_id} (pattern {p})"),
                ),
            };
            Touch {
                path: path.clone(),
                verdict: Outcome::Pass,
                pattern: Some(pattern),
                issues,
                reason,
                decide: None,
            }
        }
        None => {
            let covered = match issues.as_slice() {
                [] => " (no open issue of the plan covers it)".to_string(),
                some => format!(
                    " ({} {} covers it)",
                    if some.len() == 1 { "issue" } else { "issues" },
                    some.iter()
                        .map(|c| match &c.intent {
                            Some(i) => format!("{} of intent {i}", c.issue),
                            None => c.issue.clone(),
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            let mut decide = format!(
                "add it to the task's scope: `gate task scope add {} --because \"…\"`",
                scope_add_arg(path)
            );
            if let Some(first) = issues.first() {
                decide.push_str(&format!(
                    "; or, when it is other work, finish this task and start one for it: `gate start --issue {} --brief -`",
                    first.issue
                ));
            }
            Touch {
                path: path.clone(),
                verdict: Outcome::Refused,
                pattern: None,
                issues,
                reason: format!("{path} is outside the scope of task {task_id}{covered}"),
                decide: Some(decide),
            }
        }
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
    fn contains_is_covering_answered_yes_or_no() {
        let scopes = [
            scope(&["docs", "src/*.rs", "src/**"]),
            scope(&["a/*", "b/**/c", "*.md", "x/{y,z}"]),
            scope(&[]),
        ];
        let paths = [
            "docs",
            "docs/a/b.md",
            "src/a.rs",
            "src/x/y.rs",
            "a/b",
            "a/b/c/d",
            "b/c",
            "b/q/r/c/e",
            "README.md",
            "deep/README.md",
            "x/y/1",
            "x/w",
            "a",
            "",
            ".gate/tasks/T-1.md",
            ".gate/tasks/T-2.md",
            "src",
            "srcx/a.rs",
        ];
        for s in &scopes {
            for p in paths {
                let path: RepoPath = p.into();
                assert_eq!(s.contains(&path), s.covering(&path).is_some(), "{p}");
            }
        }
    }

    #[test]
    fn covering_names_the_first_pattern_that_matches_the_path_or_a_directory_above() {
        let s = scope(&["docs", "src/*.rs", "src/**"]);
        assert_eq!(
            s.covering(&"src/a.rs".into()),
            Some(Cover::Pattern("src/*.rs"))
        );
        assert_eq!(
            s.covering(&"src/x/y.rs".into()),
            Some(Cover::Pattern("src/**"))
        );
        assert_eq!(
            s.covering(&"docs/a/b.md".into()),
            Some(Cover::Pattern("docs"))
        );
        assert_eq!(
            s.covering(&".gate/tasks/T-1.md".into()),
            Some(Cover::TaskFile)
        );
        assert_eq!(s.covering(&"README.md".into()), None);
    }

    #[test]
    fn a_refused_touch_names_the_scope_add_and_the_covering_issue() {
        let s = scope(&["src/**"]);
        let ok = touch(&s, "T-1", &"src/a.rs".into(), vec![]);
        assert_eq!(ok.verdict, crate::verdict::Outcome::Pass);
        assert_eq!(ok.pattern.as_deref(), Some("src/**"));
        let cover = IssueCover {
            issue: "7".into(),
            intent: Some("docs".into()),
        };
        let no = touch(&s, "T-1", &"README.md".into(), vec![cover]);
        assert_eq!(no.verdict, crate::verdict::Outcome::Refused);
        assert!(
            no.reason.contains("issue 7 of intent docs covers it"),
            "{}",
            no.reason
        );
        let decide = no.decide.unwrap();
        assert!(
            decide.contains("gate task scope add ':/README.md'"),
            "{decide}"
        );
        assert!(decide.contains("gate start --issue 7"), "{decide}");
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
