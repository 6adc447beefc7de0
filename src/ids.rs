//! The formats of gate's identifiers, checked by hand (no regex engine).
//!
//! - check, intent, criterion, exemption and finding ids:
//!   `^[A-Za-z][A-Za-z0-9_-]{0,39}$`
//! - issue ids: `^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$` (often numeric, like
//!   `"42"`; always strings in YAML)
//! - task ids: `^[A-Za-z][A-Za-z0-9._-]{0,63}$`
//!
//! A task id names a file, `.gate/tasks/<ID>.md`: it can hold no `/` and
//! cannot be `.` or `..` (it starts with a letter), so it never escapes that
//! directory. Each validator returns a message fit to show after the key.
//! This module knows formats only, not whether an id exists.

/// Which characters may follow the first one.
#[derive(Clone, Copy)]
enum Tail {
    /// Letters, digits, `_` and `-`.
    Name,
    /// Letters, digits, `.`, `_` and `-`.
    Dotted,
}

struct Rule {
    kind: &'static str,
    first_digit_ok: bool,
    tail: Tail,
    max_len: usize,
}

impl Rule {
    fn check(&self, id: &str) -> Result<(), String> {
        let kind = self.kind;
        let shape = self.shape();
        let mut chars = id.chars();
        let Some(first) = chars.next() else {
            return Err(format!("the {kind} id is empty; {shape}"));
        };
        let first_ok =
            first.is_ascii_alphabetic() || (self.first_digit_ok && first.is_ascii_digit());
        if !first_ok {
            return Err(format!("{id:?} is not a valid {kind} id: {shape}"));
        }
        if let Some(bad) = chars.find(|&c| !self.tail_ok(c)) {
            return Err(format!(
                "{id:?} is not a valid {kind} id: {bad:?} is not allowed; {shape}"
            ));
        }
        let len = id.chars().count();
        if len > self.max_len {
            return Err(format!(
                "{id:?} is not a valid {kind} id: {len} characters, at most {} allowed",
                self.max_len
            ));
        }
        Ok(())
    }

    fn tail_ok(&self, c: char) -> bool {
        c.is_ascii_alphanumeric()
            || c == '_'
            || c == '-'
            || (matches!(self.tail, Tail::Dotted) && c == '.')
    }

    fn shape(&self) -> String {
        let first = if self.first_digit_ok {
            "a letter or digit"
        } else {
            "a letter"
        };
        let tail = match self.tail {
            Tail::Name => "letters, digits, '_' or '-'",
            Tail::Dotted => "letters, digits, '.', '_' or '-'",
        };
        format!(
            "use {first} then up to {} {tail}",
            self.max_len.saturating_sub(1)
        )
    }
}

const fn name_rule(kind: &'static str) -> Rule {
    Rule {
        kind,
        first_digit_ok: false,
        tail: Tail::Name,
        max_len: 40,
    }
}

/// An acceptance check id (`binding-tests`).
pub fn acceptance_id(id: &str) -> Result<(), String> {
    name_rule("check").check(id)
}

/// An intent id (`I-binding`).
pub fn intent_id(id: &str) -> Result<(), String> {
    name_rule("intent").check(id)
}

/// A criterion id (`C1`).
pub fn criterion_id(id: &str) -> Result<(), String> {
    name_rule("criterion").check(id)
}

/// An exemption class id (`dependency-bump`).
pub fn exemption_id(id: &str) -> Result<(), String> {
    name_rule("exemption").check(id)
}

/// A critique finding id (`F1`).
pub fn finding_id(id: &str) -> Result<(), String> {
    name_rule("finding").check(id)
}

/// An issue id (`42`, `GH-42`, `v2.1-docs`).
pub fn issue_id(id: &str) -> Result<(), String> {
    Rule {
        kind: "issue",
        first_digit_ok: true,
        tail: Tail::Dotted,
        max_len: 40,
    }
    .check(id)
}

/// A task id (`T-42-binding`); safe to use as a file name under `.gate/tasks/`.
pub fn task_id(id: &str) -> Result<(), String> {
    Rule {
        kind: "task",
        first_digit_ok: false,
        tail: Tail::Dotted,
        max_len: 64,
    }
    .check(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_ids() {
        for ok in ["a", "binding-tests", "C1", "I_x-9", &"a".repeat(40)] {
            assert_eq!(acceptance_id(ok), Ok(()), "{ok}");
            assert_eq!(intent_id(ok), Ok(()));
            assert_eq!(criterion_id(ok), Ok(()));
            assert_eq!(exemption_id(ok), Ok(()));
            assert_eq!(finding_id(ok), Ok(()));
        }
        for bad in [
            "",
            "1a",
            "-a",
            "_a",
            "a.b",
            "a b",
            "a/b",
            "é",
            "aé",
            &"a".repeat(41),
        ] {
            assert!(acceptance_id(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            acceptance_id("binding tests").unwrap_err(),
            "\"binding tests\" is not a valid check id: ' ' is not allowed; use a letter then \
             up to 39 letters, digits, '_' or '-'"
        );
        assert_eq!(
            intent_id("").unwrap_err(),
            "the intent id is empty; use a letter then up to 39 letters, digits, '_' or '-'"
        );
        assert!(
            acceptance_id(&"a".repeat(41))
                .unwrap_err()
                .contains("41 characters")
        );
    }

    #[test]
    fn issue_ids() {
        for ok in ["42", "GH-42", "v2.1-docs", "a", "0", &"9".repeat(40)] {
            assert_eq!(issue_id(ok), Ok(()), "{ok}");
        }
        for bad in ["", ".x", "-1", "_1", "4 2", "4/2", &"9".repeat(41)] {
            assert!(issue_id(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn task_ids() {
        for ok in ["T-42-binding", "t", "T..x", "T.1_2-3", &"T".repeat(64)] {
            assert_eq!(task_id(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            ".",
            "..",
            "../../x",
            "T/x",
            "T\\x",
            "1T",
            ".hidden",
            "T x",
            "T\n",
            &"T".repeat(65),
        ] {
            assert!(task_id(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_valid_task_id_stays_inside_the_tasks_directory() {
        use std::path::{Component, Path};
        for id in ["T..x", "T.", "a..", "T-1"] {
            task_id(id).unwrap();
            let file = Path::new(".gate/tasks").join(format!("{id}.md"));
            let parts: Vec<_> = file.components().collect();
            assert_eq!(parts.len(), 3, "{id}");
            assert!(matches!(parts[2], Component::Normal(_)), "{id}");
        }
    }
}
