//! The human rendering of a [`Report`]: what was checked, what was found,
//! what would decide it, and what it costs under the policy. Findings that
//! name a commit are grouped under it.
//!
//! Found by area: each module renders one part of gate's answers.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

use super::limit::{COMMITS_NAMED, Counts};
use super::style::{self, Out};
use super::wire::doctor::{Item, Status};
use crate::checks::binding::Derived;
use crate::checks::receipts::Status as ReceiptsStatus;
use crate::policy::Mode;
use crate::receipts::{State, UnknownCause};
use crate::task::Task;
use crate::text::FileText;
use crate::verdict::{
    BriefDigest, CheckReport, ExitCode, Finding, Outcome, Report, Severity, TaskRef,
};

const OUT: Out = Out::Stdout;

mod agents;
mod checks;
mod hooks;
mod install;
mod receipts;
mod tasks;

pub use agents::*;
pub use checks::*;
pub use hooks::*;
pub use install::*;
pub use receipts::*;
pub use tasks::*;

#[cfg(test)]
mod tests {
    //! The lines no integration test reaches, pinned to the bytes the verbs
    //! wrote before their rendering moved here.
    use super::*;
    use crate::ctx::TaskCommit;

    #[test]
    fn post_checkout_lines_for_an_unreadable_pointer_and_an_unknown_branch() {
        assert_eq!(
            checked_out("topic", &CheckedOut::Cleared { was: None }),
            "gate: no task was started on topic; cleared the active task pointer, which was unreadable\n"
        );
        assert_eq!(
            head_detached(None),
            "gate: HEAD is detached; the active task pointer is unreadable (`gate task switch ID` repairs it)\n"
        );
        assert_eq!(
            new_branch_unknown("topic", "bad\nref"),
            "gate: cannot tell whether topic is a new branch (bad\\nref); judging it as an existing one\n"
        );
    }

    #[test]
    fn uninstall_and_settings_lines() {
        assert_eq!(
            hooks_uninstalled(
                Path::new("/r/.git/hooks"),
                &[("pre-commit", HookRemoved::NotGates)]
            ),
            "hooks directory: /r/.git/hooks\n  pre-commit: not gate's; left as it is\n"
        );
        assert_eq!(
            settings_written(".claude/settings.json", SettingsWritten::Unchanged, None),
            ".claude/settings.json: unchanged\n"
        );
    }

    #[test]
    fn agent_files_without_the_governance_class_get_the_route_the_binding_allows() {
        use crate::checks::scope::CommitRoute;
        let route = |binding_required| CommitRoute::OwnTask {
            governance: false,
            binding_required,
            active: None,
        };
        let plain = settings_written(
            ".claude/settings.json",
            SettingsWritten::Written,
            Some(&route(false)),
        );
        assert!(
            plain.contains("\ngate start --scope ':/.claude/settings.json' --brief - <<'EOF'\n"),
            "{plain}"
        );
        assert!(!plain.contains("gate task switch"), "{plain}");
        let bound = agents_spliced(crate::agents_md::Spliced::Created, &route(true));
        assert!(
            bound.contains("declares no `governance` exemption class")
                && bound.contains("`--scope ':/AGENTS.md'`")
                && !bound.contains("\ngate start"),
            "{bound}"
        );
        // Nothing to commit after an uninstall: no route.
        assert_eq!(
            settings_written(
                ".claude/settings.json",
                SettingsWritten::Removed,
                Some(&route(false))
            ),
            ".claude/settings.json: removed (gate's hooks were all it held)\n"
        );
    }

    #[test]
    fn task_lines_no_test_of_a_verb_reaches() {
        assert_eq!(
            scope_already("T-1", "docs/**"),
            "task T-1: docs/** is in its scope already; nothing written\n"
        );
        assert_eq!(
            task_list(&[], &[], Some("T-9")),
            "no tasks (start one with `gate start`)\n! the active task `T-9` has no task file\n"
        );
        let on = SwitchedOn {
            branch: "topic",
            tied: Err("locked".into()),
        };
        let task = TaskRef {
            id: "T-1".into(),
            issue: None,
            intent: None,
            exemption: None,
            brief: None,
        };
        assert!(switched("T-1", Some(&on), &task).starts_with(
            "active task: T-1\n  warning: not recorded for branch topic (locked): checking it out again will not re-activate the task\ntask "
        ));
        let commit = TaskCommit {
            path: ".gate/tasks/T-1.md".into(),
            command: "git commit".into(),
        };
        let added = TaskChange::ScopeAdded {
            id: "T-1",
            glob: "docs/**",
            file: Path::new(".gate/tasks/T-1.md"),
            not_recorded: Some("locked"),
        };
        assert_eq!(
            task_changed(&added, &commit),
            "task T-1: scope adds docs/** (appended to .gate/tasks/T-1.md)\n  warning: not recorded in this clone (locked): the doors count the addition once the task file is committed\nthe task file changed: commit .gate/tasks/T-1.md with the work, or alone: git commit\n"
        );
    }

    #[test]
    fn verify_and_stop_lines() {
        assert_eq!(
            verify_attach_failed("unit", "1a2b3c4d", "no space"),
            "unit: the receipt could not be attached to commit 1a2b3c4d: no space\n"
        );
        let left = work_left("T-1", &[("unit", &State::Missing)]);
        assert_eq!(
            left,
            "task T-1 is not done: 1 check it depends on has not passed on the current sources.\n- unit: missing: run `gate verify unit`\nThen `gate status` shows each check's standing."
        );
        assert_eq!(
            stopping_with_work_left(&left),
            format!("gate: stopping with work left: {left}")
        );
    }
}
