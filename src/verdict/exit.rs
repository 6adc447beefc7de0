//! The exit code every verb ends with, and the one rule that orders
//! outcomes (docs/decisions/0005-exit-code-precedence.md): a refusal
//! outranks an unknown, an unknown outranks a pass.

use std::fmt;

use super::Outcome;

/// How a verb ended, as the process exit code: `0` nothing blocks, `1`
/// refused, `2` usage, `3` could not read or decide (docs/exit-codes.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    Pass,
    Refused,
    Usage,
    Unknown,
}

impl ExitCode {
    /// The exit code of the outcomes that block (each check's outcome under
    /// mode `required`; a verb's items that must hold): refused if any
    /// refused, else unknown if any is unknown, else pass.
    pub fn of(blocking: impl IntoIterator<Item = Outcome>) -> ExitCode {
        Outcome::worst(blocking).into()
    }

    /// The number the process exits with.
    pub fn code(self) -> i32 {
        match self {
            ExitCode::Pass => 0,
            ExitCode::Refused => 1,
            ExitCode::Usage => 2,
            ExitCode::Unknown => 3,
        }
    }
}

impl Outcome {
    /// The outcome of several: refused if any refused, else unknown if any
    /// is unknown, else pass (decision 0005; none at all is a pass).
    pub fn worst(outcomes: impl IntoIterator<Item = Outcome>) -> Outcome {
        let mut worst = Outcome::Pass;
        for outcome in outcomes {
            match outcome {
                Outcome::Refused => return Outcome::Refused,
                Outcome::Unknown => worst = Outcome::Unknown,
                Outcome::Pass => {}
            }
        }
        worst
    }
}

impl From<Outcome> for ExitCode {
    fn from(outcome: Outcome) -> ExitCode {
        match outcome {
            Outcome::Pass => ExitCode::Pass,
            Outcome::Refused => ExitCode::Refused,
            Outcome::Unknown => ExitCode::Unknown,
        }
    }
}

/// An exit code is its number: `code == 1`.
impl PartialEq<i32> for ExitCode {
    fn eq(&self, number: &i32) -> bool {
        self.code() == *number
    }
}

/// The number, as in "exit 1".
impl fmt::Display for ExitCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use Outcome::{Pass, Refused, Unknown};

    #[test]
    fn a_refusal_outranks_an_unknown_in_any_order() {
        assert_eq!(ExitCode::of([Unknown, Refused]), ExitCode::Refused);
        assert_eq!(ExitCode::of([Refused, Unknown]), ExitCode::Refused);
        assert_eq!(ExitCode::of([Pass, Unknown, Pass]), ExitCode::Unknown);
        assert_eq!(ExitCode::of([Pass, Refused]), ExitCode::Refused);
    }

    #[test]
    fn nothing_blocking_is_a_pass() {
        assert_eq!(ExitCode::of([]), ExitCode::Pass);
        assert_eq!(ExitCode::of([Pass, Pass]), ExitCode::Pass);
    }

    #[test]
    fn the_codes_are_the_documented_numbers() {
        let codes = [
            ExitCode::Pass,
            ExitCode::Refused,
            ExitCode::Usage,
            ExitCode::Unknown,
        ]
        .map(ExitCode::code);
        assert_eq!(codes, [0, 1, 2, 3]);
        assert_eq!(ExitCode::Unknown.to_string(), "3");
    }

    #[test]
    fn worst_of_outcomes_follows_the_same_order() {
        assert_eq!(Outcome::worst([Unknown, Refused, Pass]), Refused);
        assert_eq!(Outcome::worst([Pass, Unknown]), Unknown);
        assert_eq!(Outcome::worst([]), Pass);
    }
}
