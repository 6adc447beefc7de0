//! Edits an agent made outside the repository (docs/agents.md, "Edits
//! outside the repository"): where an agent host's hook records a write
//! that lands in no repository gate governs, under `agents.external_edits:
//! report`, and where `gate context` reads them back as its session
//! summary.
//!
//! One file per task (`<common-dir>/gate/external/<ID>.json`, or
//! `no-task.json` for edits made with no task active): each path once,
//! with the tool that last wrote it, when it was first and last written
//! and how often. Written under a lock, re-read inside it, atomically;
//! read bounded, never through a link. At most [`MAX_PATHS`] paths are
//! kept, the least recently written dropped first, and the file says how
//! many were dropped.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::fsutil::{self, Kind};

pub const SCHEMA: &str = "gate.external-edits/1";

/// Most paths a record keeps.
pub const MAX_PATHS: usize = 1000;

/// The record's reading bound: far above [`MAX_PATHS`] entries.
const KIND: Kind = Kind {
    what: "a record of edits outside the repository",
    max: 4 << 20,
};

/// The file name of edits made with no task active.
const NO_TASK: &str = "no-task";

/// One path written outside the repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Edit {
    /// Where the write lands, absolute, links resolved.
    pub path: String,
    /// The tool that last wrote it (`Write`, `Edit`, …).
    pub tool: String,
    pub first_at: String,
    pub last_at: String,
    /// How many writes the hook let through.
    pub count: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Record {
    schema: String,
    edits: Vec<Edit>,
    /// Paths dropped to keep [`MAX_PATHS`].
    #[serde(default)]
    dropped: u64,
}

/// What the record of a task holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recorded {
    /// Newest write first.
    pub edits: Vec<Edit>,
    pub dropped: u64,
}

fn dir(common_dir: &Path) -> PathBuf {
    common_dir.join("gate").join("external")
}

fn name(task: Option<&str>) -> String {
    format!("{}.json", task.unwrap_or(NO_TASK))
}

/// Record a write of `path` by `tool` at `now`, for `task`.
pub fn record(
    common_dir: &Path,
    task: Option<&str>,
    tool: &str,
    path: &str,
    now: &str,
) -> Result<(), String> {
    let key = task.unwrap_or(NO_TASK);
    let _lock = fsutil::lock(
        &common_dir
            .join("gate")
            .join("locks")
            .join(format!("external-{key}.lock")),
        crate::task::LOCK_TIMEOUT,
    )
    .map_err(|e| e.to_string())?;
    let mut record = read_record(common_dir, task)?.unwrap_or(Record {
        schema: SCHEMA.into(),
        edits: Vec::new(),
        dropped: 0,
    });
    match record.edits.iter_mut().find(|e| e.path == path) {
        Some(edit) => {
            edit.tool = tool.into();
            edit.last_at = now.into();
            edit.count += 1;
        }
        None => record.edits.push(Edit {
            path: path.into(),
            tool: tool.into(),
            first_at: now.into(),
            last_at: now.into(),
            count: 1,
        }),
    }
    newest_first(&mut record.edits);
    if record.edits.len() > MAX_PATHS {
        record.dropped += (record.edits.len() - MAX_PATHS) as u64;
        record.edits.truncate(MAX_PATHS);
    }
    let bytes = serde_json::to_vec_pretty(&record).map_err(|e| e.to_string())?;
    let dir = dir(common_dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    fsutil::write_atomic(&dir.join(name(task)), &bytes, None).map_err(|e| e.to_string())
}

/// The edits recorded for `task`, newest first; none when nothing was
/// recorded. A record gate cannot read (a link, a FIFO, oversized, not
/// its format) is an error naming it, never an empty record.
pub fn read(common_dir: &Path, task: Option<&str>) -> Result<Recorded, String> {
    Ok(read_record(common_dir, task)?
        .map(|mut r| {
            newest_first(&mut r.edits);
            Recorded {
                edits: r.edits,
                dropped: r.dropped,
            }
        })
        .unwrap_or_default())
}

fn read_record(common_dir: &Path, task: Option<&str>) -> Result<Option<Record>, String> {
    let dir = dir(common_dir);
    let file = name(task);
    let Some(bytes) =
        fsutil::read_within(&dir, Path::new(&file), KIND).map_err(|e| e.to_string())?
    else {
        return Ok(None);
    };
    let record: Record = serde_json::from_slice(&bytes).map_err(|e| {
        format!(
            "{}: not a record of edits outside the repository: {e}",
            dir.join(&file).display()
        )
    })?;
    if record.schema != SCHEMA {
        return Err(format!(
            "{}: schema {:?}, not {SCHEMA}",
            dir.join(&file).display(),
            record.schema
        ));
    }
    Ok(Some(record))
}

/// Newest write first; by path among writes at the same time.
fn newest_first(edits: &mut [Edit]) {
    edits.sort_by(|a, b| b.last_at.cmp(&a.last_at).then_with(|| a.path.cmp(&b.path)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_path_is_kept_once_newest_first_and_counted() {
        let dir = tempfile::tempdir().unwrap();
        let common = dir.path();
        assert_eq!(read(common, Some("T-1")).unwrap(), Recorded::default());
        record(
            common,
            Some("T-1"),
            "Write",
            "/tmp/a",
            "2026-12-01T10:00:00Z",
        )
        .unwrap();
        record(
            common,
            Some("T-1"),
            "Edit",
            "/tmp/b",
            "2026-12-01T10:01:00Z",
        )
        .unwrap();
        record(
            common,
            Some("T-1"),
            "Edit",
            "/tmp/a",
            "2026-12-01T10:02:00Z",
        )
        .unwrap();
        record(common, None, "Write", "/tmp/c", "2026-12-01T10:03:00Z").unwrap();
        let got = read(common, Some("T-1")).unwrap();
        let paths: Vec<(&str, &str, u64)> = got
            .edits
            .iter()
            .map(|e| (e.path.as_str(), e.tool.as_str(), e.count))
            .collect();
        assert_eq!(paths, [("/tmp/a", "Edit", 2), ("/tmp/b", "Edit", 1)]);
        assert_eq!(got.edits[0].first_at, "2026-12-01T10:00:00Z");
        assert_eq!(read(common, None).unwrap().edits.len(), 1);
    }

    #[test]
    fn the_record_keeps_the_newest_paths_and_counts_the_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let common = dir.path();
        for i in 0..MAX_PATHS + 2 {
            let at = format!("2026-12-01T10:{:02}:{:02}Z", i / 60 % 60, i % 60);
            record(common, None, "Write", &format!("/tmp/{i:05}"), &at).unwrap();
        }
        let got = read(common, None).unwrap();
        assert_eq!(got.edits.len(), MAX_PATHS);
        assert_eq!(got.dropped, 2);
        assert_eq!(got.edits[0].path, format!("/tmp/{:05}", MAX_PATHS + 1));
        assert!(!got.edits.iter().any(|e| e.path == "/tmp/00000"));
    }

    #[test]
    fn a_record_gate_cannot_read_is_an_error_not_an_empty_one() {
        let dir = tempfile::tempdir().unwrap();
        let common = dir.path();
        std::fs::create_dir_all(super::dir(common)).unwrap();
        std::fs::write(super::dir(common).join("T-1.json"), "not json").unwrap();
        assert!(
            read(common, Some("T-1"))
                .unwrap_err()
                .contains("not a record")
        );
        // And a write over it is refused, not a silent reset.
        assert!(record(common, Some("T-1"), "Write", "/x", "t").is_err());
    }
}
