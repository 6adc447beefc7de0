//! Where gate keeps a task's local state, in `<common-dir>/gate`, shared
//! by the worktrees: the start record (the branches the task is tied to,
//! `crate::started`), the task file as `gate start` wrote it and the scope
//! entries `gate task scope add` appended (`crate::checks::recorded`). The
//! paths live here, with the task model, so that the model and whoever
//! writes them name one place and the task module depends on neither.

use std::path::{Path, PathBuf};

/// Where the start records are kept.
pub fn started_dir(common_dir: &Path) -> PathBuf {
    common_dir.join("gate").join("started")
}

/// Where the start branch of a task is recorded.
pub fn started_path(common_dir: &Path, id: &str) -> PathBuf {
    started_dir(common_dir).join(id)
}

/// Where the task file is kept as `gate start` wrote it.
pub fn start_record_path(common_dir: &Path, id: &str) -> PathBuf {
    common_dir
        .join("gate")
        .join("recorded")
        .join(format!("{id}.md"))
}

/// Where the scope entries `gate task scope add` appended are kept.
pub fn scope_log_path(common_dir: &Path, id: &str) -> PathBuf {
    common_dir
        .join("gate")
        .join("recorded")
        .join(format!("{id}.scope"))
}

/// Everything gate keeps under a task's id: what makes an id taken even
/// where no task file holds it (`crate::task::fresh`).
pub fn local_state(common_dir: &Path, id: &str) -> [PathBuf; 3] {
    [
        started_path(common_dir, id),
        start_record_path(common_dir, id),
        scope_log_path(common_dir, id),
    ]
}
