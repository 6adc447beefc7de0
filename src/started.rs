//! The branches each task is tied to (`<common-dir>/gate/started/<ID>`,
//! one full ref name a line): `gate start` and `gate task switch` write
//! them, post-checkout reads them to make the task active when its branch
//! is checked out (decision 0007).

use std::path::Path;

use crate::ctx::Ctx;
use crate::error::Failure;
use crate::task as tasks;

pub use crate::task::local::{started_dir, started_path};

/// Record `branch` (a full ref name) for task `id`: a line added to its
/// start record (`<common-dir>/gate/started/<ID>`, one branch a line), so
/// that post-checkout makes the task active when the branch is checked out
/// (decision 0007). Under a lock, re-reading the record inside it; atomic.
pub fn tie_to_branch(ctx: &Ctx, id: &str, branch: &str) -> Result<(), Failure> {
    let common = ctx.repo.common_dir();
    let _lock = crate::fsutil::lock(
        &ctx.state_dir()
            .join("locks")
            .join(format!("started-{id}.lock")),
        tasks::LOCK_TIMEOUT,
    )
    .map_err(|e| Failure::unknown(e.to_string()))?;
    let dir = started_dir(&common);
    let kept = crate::fsutil::read_within(&dir, Path::new(id), crate::fsutil::Kind::START_RECORD)
        .map_err(|e| Failure::unknown(e.to_string()))?
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    if kept.lines().any(|l| l.trim() == branch) {
        return Ok(());
    }
    let mut text = kept;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(branch);
    text.push('\n');
    if text.len() as u64 > crate::fsutil::Kind::START_RECORD.max {
        return Err(Failure::refused(format!(
            "the start record of task {id} would exceed {} bytes",
            crate::fsutil::Kind::START_RECORD.max
        )));
    }
    crate::fsutil::write_atomic(&started_path(&common, id), text.as_bytes(), None)?;
    Ok(())
}

/// The ids whose start records name `branch` (a full ref name), sorted,
/// whatever their tasks' status; or why that cannot be told. Guarded
/// reads: a FIFO, a link or an oversized record is an error naming it.
pub fn tied_to(common_dir: &Path, branch: &str) -> Result<Vec<String>, String> {
    let dir = started_dir(common_dir);
    let names = match crate::fsutil::list_within(&dir, Path::new("")) {
        Ok(Some(names)) => names,
        Ok(None) => return Ok(Vec::new()),
        Err(e) => return Err(e.to_string()),
    };
    let mut out = Vec::new();
    for name in names {
        // Not a name gate writes (a temporary of an atomic write).
        let Some(id) = name.to_str().filter(|n| crate::ids::task_id(n).is_ok()) else {
            continue;
        };
        let recorded = match crate::fsutil::read_within(
            &dir,
            Path::new(id),
            crate::fsutil::Kind::START_RECORD,
        ) {
            Ok(Some(bytes)) => bytes,
            // Removed since the listing (another run's write).
            Ok(None) => continue,
            Err(e) => return Err(e.to_string()),
        };
        if String::from_utf8_lossy(&recorded)
            .lines()
            .any(|l| l.trim() == branch)
        {
            out.push(id.to_string());
        }
    }
    out.sort();
    Ok(out)
}
