//! The git hooks' own lines: prepare-commit-msg's trailer and
//! post-checkout's task pointer.

use super::*;

/// What prepare-commit-msg, which never fails a commit, says on stderr
/// when it could not add the trailer.
pub fn trailer_not_added(message: &str) -> String {
    format!(
        "gate: prepare-commit-msg: {}; the message is left as it was\n",
        FileText::new(message)
    )
}

/// What prepare-commit-msg says on stderr when the message it is handed
/// (reused by `git commit --amend`, `-c`, `-C`) names task `named` while
/// `active` is the active task: the commit is `named`'s (docs/hooks.md).
pub fn reused_trailer(key: &str, named: &str, active: &str) -> String {
    let (key, named, active) = (
        FileText::new(key),
        FileText::new(named),
        FileText::new(active),
    );
    format!(
        "gate: this commit keeps `{key}: {named}` from the message it reuses, while {active} is the active task: it counts as task {named}'s, and the push judges its paths by {named}'s scope (pre-commit judged them by {active}'s). If it is {named}'s work, run `gate task switch {named}`; if it is {active}'s, change the trailer to `{key}: {active}` (in the editor, or with `git commit --amend` after).\n"
    )
}

/// What post-checkout, which never fails a checkout, says on stderr when it
/// could not do its work.
pub fn checkout_failed(message: &str) -> String {
    format!("gate: post-checkout: {message}\n")
}

/// What post-checkout did with the active task (decision 0007).
pub enum CheckedOut<'a> {
    /// The one task started on the branch is active.
    StartedOn { id: &'a str },
    /// The active task follows HEAD onto a branch just created; why the
    /// branch could not be recorded for it, if it could not.
    Follows {
        id: &'a str,
        not_recorded: Option<&'a str>,
    },
    /// No task was started on the branch, and none was active.
    NoneStarted,
    /// No task was started on the branch: the active one (`was`; `None`
    /// when the pointer was unreadable) is cleared.
    Cleared { was: Option<&'a str> },
    /// Several tasks were started on the branch: the active one is cleared.
    Several { ids: &'a [String] },
}

/// post-checkout's one line when HEAD is detached: the pointer is left
/// alone; what it holds (`Some(None)`: no task; `None`: it cannot be read).
pub fn head_detached(active: Option<Option<&str>>) -> String {
    match active {
        Some(Some(c)) => format!("gate: HEAD is detached; the active task is still {c}\n"),
        Some(None) => "gate: HEAD is detached; no active task\n".to_string(),
        None => "gate: HEAD is detached; the active task pointer is unreadable (`gate task switch ID` repairs it)\n".to_string(),
    }
}

/// post-checkout's one line: the active task after the checkout of the
/// branch shown as `where_` (already made one line).
pub fn checked_out(where_: &str, checked: &CheckedOut) -> String {
    match checked {
        CheckedOut::StartedOn { id } => format!("gate: active task {id} (started on {where_})\n"),
        CheckedOut::Follows {
            id,
            not_recorded: None,
        } => format!("gate: active task {id} (follows HEAD onto the new branch {where_})\n"),
        CheckedOut::Follows {
            id,
            not_recorded: Some(why),
        } => format!(
            "gate: active task {id} (follows HEAD onto the new branch {where_}; not recorded for it: {} — `gate task switch {id}` records it)\n",
            FileText::new(why)
        ),
        CheckedOut::NoneStarted => {
            format!("gate: no active task (none was started on {where_})\n")
        }
        CheckedOut::Cleared { was: Some(c) } => {
            format!("gate: no task was started on {where_}; cleared the active task (was {c})\n")
        }
        CheckedOut::Cleared { was: None } => format!(
            "gate: no task was started on {where_}; cleared the active task pointer, which was unreadable\n"
        ),
        CheckedOut::Several { ids } => format!(
            "gate: {} tasks were started on {where_} ({}); cleared the active task — `gate task switch ID` picks one\n",
            ids.len(),
            ids.join(", ")
        ),
    }
}

/// post-checkout's line on stderr when which tasks were started on the
/// branch cannot be told (`why`): the active task is left as it was.
pub fn started_on_unknown(branch: &str, why: &str) -> String {
    format!(
        "gate: cannot tell which tasks were started on {} ({}); the active task is left as it was\n",
        FileText::new(branch),
        FileText::new(why)
    )
}

/// post-checkout's line on stderr when whether the branch (`where_`,
/// already made one line) is new cannot be told (`why`).
pub fn new_branch_unknown(where_: &str, why: &str) -> String {
    format!(
        "gate: cannot tell whether {where_} is a new branch ({}); judging it as an existing one\n",
        FileText::new(why)
    )
}
