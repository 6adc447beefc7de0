//! [`Failure`]: a verb that could not do its work. It carries the message
//! printed after `gate: error:`, an optional hint printed after `gate: hint:`,
//! the [`ExitCode`] (refused, usage, or could not read or decide; see
//! docs/exit-codes.md) and, when it came from a module's error, that error as
//! its [`source`](std::error::Error::source). `report::json` renders it as a
//! `gate.error/1` document (docs/json.md); `commands::run` prints it.

use std::fmt;

use crate::git::GitError;
use crate::load::LoadError;
use crate::task::TaskError;
use crate::verdict::ExitCode;

/// The module error a failure was made from.
type Source = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A verb that could not do its work: the message, a hint, and the exit code
/// (refused, usage, or could not read or decide; never a pass).
#[derive(Debug)]
pub struct Failure {
    pub code: ExitCode,
    pub message: String,
    pub hint: Option<String>,
    /// The module error this failure was made from, if any.
    pub source: Option<Source>,
}

impl Failure {
    fn new(code: ExitCode, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
            hint: None,
            source: None,
        }
    }

    pub fn refused(message: impl Into<String>) -> Failure {
        Failure::new(ExitCode::Refused, message)
    }

    pub fn usage(message: impl Into<String>) -> Failure {
        Failure::new(ExitCode::Usage, message)
    }

    pub fn unknown(message: impl Into<String>) -> Failure {
        Failure::new(ExitCode::Unknown, message)
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Failure {
        self.hint = Some(hint.into());
        self
    }

    /// This failure as "could not decide" (`ExitCode::Unknown`), whatever it
    /// was: for a caller to whom any failure of a step it needs is unknown.
    pub fn as_unknown(self) -> Failure {
        Failure {
            code: ExitCode::Unknown,
            ..self
        }
    }

    /// This failure with `message` in place of its own, the code, the hint
    /// and the source kept: for a caller that says what the failure stopped.
    pub fn reworded(self, message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            ..self
        }
    }

    /// Keep `source` as the error this failure came from; the message is
    /// unchanged (it already says what the source says).
    fn caused_by(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Failure {
        self.source = Some(Box::new(source));
        self
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|s| s as &(dyn std::error::Error + 'static))
    }
}

impl From<GitError> for Failure {
    fn from(e: GitError) -> Failure {
        let hint = match &e {
            GitError::NotARepository { .. } => {
                Some("run gate inside a git work tree, or pass -C DIR")
            }
            GitError::NoWorkTree { .. } => {
                Some("this verb needs a work tree; a bare repository has none")
            }
            GitError::NotADirectory { .. } => {
                Some("run gate in a directory of a git work tree, or pass -C with one")
            }
            GitError::UnsupportedObjectFormat { .. } => Some(
                "gate reads SHA-1 repositories only; use it in a repository made with git's default object format",
            ),
            _ => None,
        };
        let failure = Failure::unknown(e.to_string());
        let failure = match hint {
            Some(h) => failure.hint(h),
            None => failure,
        };
        failure.caused_by(e)
    }
}

impl From<LoadError> for Failure {
    fn from(e: LoadError) -> Failure {
        Failure::unknown(e.to_string())
            .hint("fix the file, then run the command again")
            .caused_by(e)
    }
}

impl From<TaskError> for Failure {
    fn from(e: TaskError) -> Failure {
        let failure = match e {
            TaskError::NotFound { .. } => {
                Failure::refused(e.to_string()).hint("`gate task list` shows the tasks")
            }
            TaskError::Exists { .. } => {
                Failure::refused(e.to_string()).hint("choose another id with --id")
            }
            TaskError::BadId { .. } => Failure::usage(e.to_string()),
            // Another run changed the task's status first: a refusal, not an unknown.
            TaskError::Status { .. } => Failure::refused(e.to_string()),
            _ => Failure::unknown(e.to_string()),
        };
        failure.caused_by(e)
    }
}

impl From<crate::policy::CommittedError> for Failure {
    fn from(e: crate::policy::CommittedError) -> Failure {
        match e {
            crate::policy::CommittedError::Git(e) => e.into(),
            crate::policy::CommittedError::Load(e) => e.into(),
            e @ crate::policy::CommittedError::NotAFile { .. } => Failure::unknown(e.to_string())
                .hint("commit .gate/policy.yaml as a regular file")
                .caused_by(e),
        }
    }
}

impl From<crate::fsutil::FsError> for Failure {
    fn from(e: crate::fsutil::FsError) -> Failure {
        Failure::unknown(e.to_string()).caused_by(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    fn disk_gone() -> crate::fsutil::FsError {
        crate::fsutil::FsError::new(
            std::path::Path::new("x"),
            "read",
            std::io::Error::other("disk gone"),
        )
    }

    #[test]
    fn a_failure_from_a_module_error_keeps_it_as_its_source() {
        let e = disk_gone();
        let text = e.to_string();
        let f: Failure = e.into();
        assert_eq!(f.code, ExitCode::Unknown);
        assert_eq!(f.to_string(), text);
        assert_eq!(f.source().map(|s| s.to_string()), Some(text));
    }

    #[test]
    fn a_failure_made_from_a_sentence_has_no_source() {
        let f = Failure::refused("no").hint("do this");
        assert_eq!(
            (f.code, f.to_string()),
            (ExitCode::Refused, "no".to_string())
        );
        assert!(f.source().is_none());
    }

    #[test]
    fn a_reworded_failure_keeps_its_code_hint_and_source() {
        let e = disk_gone();
        let f = Failure::from(e).hint("h").reworded("could not: x");
        assert_eq!(
            (f.code, f.message.as_str()),
            (ExitCode::Unknown, "could not: x")
        );
        assert_eq!(f.hint.as_deref(), Some("h"));
        assert!(f.source().is_some());
    }
}
