//! Receipts (docs/receipts.md): the record of one run of an acceptance
//! check, bound to its contract and to the exact source content, and the
//! status derived from them at read time.
//!
//! Storage, under `<common-dir>/gate/` (shared by linked worktrees):
//!
//! - `receipts/<check>/<started_ns>-<evidence>.json` — one file per run,
//!   written once, atomically, never modified: append-only by construction,
//!   so overlapping runs (same or different checks, several worktrees) lose
//!   and tear nothing; the name orders attempts without reading them;
//! - `running/<check>/<pid>-<nonce>.json` — present while a run is under way,
//!   with an OS lock held by the running process: a live run holds the lock, a
//!   dead run's leftover does not;
//! - `logs/<check>/<evidence>.log` — the run's output.
//!
//! Which receipts count: those of this worktree and this task, with the
//! acceptance check's contract and source content as they are now
//! (docs/receipts.md). The latest attempt — the one started last — decides.
//! Files are read newest first and only until this worktree's and task's
//! latest is found; a file that cannot be read on the way (torn, corrupt, or
//! written by a newer gate) may be that latest attempt — whose it is cannot
//! be told — so it makes the state unknown rather than let an older receipt
//! decide.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::fingerprint::Fingerprint;
use crate::fsutil::{self, FsError};

pub const RECEIPT_SCHEMA: &str = "gate.receipt/1";

/// A fingerprint as a receipt records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PrintRecord {
    /// The digest, `None` when unavailable.
    pub digest: Option<String>,
    pub entries: Option<u64>,
    pub bytes: Option<u64>,
    /// Why it was unavailable (`symlink`, `too_many_entries`, …).
    pub unavailable: Option<String>,
    /// The path that made it unavailable.
    pub path: Option<String>,
}

impl PrintRecord {
    pub fn of(f: &Fingerprint) -> PrintRecord {
        match f {
            Fingerprint::Available {
                digest,
                entries,
                bytes,
            } => PrintRecord {
                digest: Some(digest.clone()),
                entries: Some(*entries),
                bytes: Some(*bytes),
                unavailable: None,
                path: None,
            },
            Fingerprint::Unavailable { reason, path } => PrintRecord {
                digest: None,
                entries: None,
                bytes: None,
                unavailable: Some(reason.as_str().to_string()),
                path: path.as_ref().map(|p| p.lossy()),
            },
        }
    }
}

/// One run of one acceptance check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Receipt {
    pub schema: String,
    /// `ev-<started>-<nonce>`: names this run in status and logs.
    pub evidence: String,
    /// The acceptance check's id (the file's `check`).
    #[serde(rename = "check")]
    pub acceptance_id: String,
    /// The acceptance check's contract digest when it ran.
    pub contract: String,
    pub command: String,
    pub fingerprint_before: PrintRecord,
    pub fingerprint_after: PrintRecord,
    /// The command's exit code; `None` when a signal ended it.
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub started_at: String,
    pub ended_at: String,
    /// Orders attempts: the start in nanoseconds since the epoch, or one
    /// past the previous run's when the clock reads earlier — taken under a
    /// lock, so it never goes backwards ([`Store::next_order`]). Receipts
    /// of older gates hold the plain start time, which orders them the same.
    pub started_ns: u128,
    pub head: Option<String>,
    /// The canonical work tree path.
    pub worktree: String,
    pub task: Option<String>,
    /// The `created_at` of that task's record: a receipt counts for that
    /// task only, never for a later one started under the same id. `None`
    /// without a task, and in receipts of older gates.
    #[serde(default)]
    pub task_created_at: Option<String>,
    /// The task's baseline the command ran at, for a check whose command
    /// uses it (`{BASELINE}`, `GATE_BASELINE`): its contract covers it
    /// (docs/receipts.md, "The task's baseline"). Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// The log, relative to `<common-dir>/gate/`.
    pub log: String,
    /// The armored signature of [`Receipt::payload`] by the user's git
    /// signing key (docs/receipts.md, "Signed receipts"); absent when the
    /// receipt is unsigned (no key configured, signing failed, or not fresh).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

impl Receipt {
    /// Whether the run exited 0.
    pub fn passed(&self) -> bool {
        self.exit_code == Some(0)
    }

    /// The fingerprint it vouches for: the same available one before and
    /// after its run, `None` when it is not fresh.
    pub fn fresh_digest(&self) -> Option<&str> {
        let before = self.fingerprint_before.digest.as_deref()?;
        let after = self.fingerprint_after.digest.as_deref()?;
        (before == after).then_some(after)
    }

    /// The bytes its signature covers, `None` when it is not fresh (only a
    /// fresh receipt travels, so only one is signed).
    pub fn payload(&self) -> Option<Vec<u8>> {
        let fingerprint = self.fresh_digest()?;
        Some(
            crate::signing::Payload {
                schema: crate::signing::PAYLOAD_SCHEMA,
                check: &self.acceptance_id,
                evidence: &self.evidence,
                contract: &self.contract,
                fingerprint,
                exit_code: self.exit_code,
                signal: self.signal,
                passed: self.passed(),
                started_at: &self.started_at,
                ended_at: &self.ended_at,
                started_ns: self.started_ns.to_string(),
                task: self.task.as_deref(),
            }
            .bytes(),
        )
    }
}

/// The places receipts live.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
}

impl Store {
    /// The store under `<common-dir>/gate/`.
    pub fn new(common_dir: &Path) -> Store {
        Store {
            root: common_dir.join("gate"),
        }
    }

    fn receipts_dir(&self, acceptance_id: &str) -> PathBuf {
        self.root.join("receipts").join(acceptance_id)
    }

    fn running_dir(&self, acceptance_id: &str) -> PathBuf {
        self.root.join("running").join(acceptance_id)
    }

    pub fn cache_dir(&self) -> PathBuf {
        self.root.join("cache")
    }

    /// Where the log of a run goes (absolute) and how the receipt names it.
    pub fn log_path(&self, acceptance_id: &str, evidence: &str) -> (PathBuf, String) {
        let rel = format!("logs/{acceptance_id}/{evidence}.log");
        (self.root.join(&rel), rel)
    }

    /// The order of a run starting now, when the clock reads `now_ns`: at
    /// least `now_ns`, and past every run started before it — the last one
    /// taken (`<gate>/sequence`) and every receipt of `acceptance_id` — so it never
    /// goes backwards when the clock does (stepped back, or another
    /// machine's on a shared disk). Taken under an OS lock
    /// (`<gate>/sequence.lock`), so two runs starting together get two
    /// values, in the order they started (docs/receipts.md).
    pub fn next_order(&self, acceptance_id: &str, now_ns: u128) -> Result<u128, String> {
        // Opened and read like every state file: never through a link,
        // never waiting on a FIFO (crate::fsutil).
        let _lock = fsutil::lock(
            &self.root.join("sequence.lock"),
            std::time::Duration::from_secs(30),
        )
        .map_err(|e| e.to_string())?;
        let path = self.root.join("sequence");
        let last = match fsutil::read_within(&self.root, Path::new("sequence"), fsutil::Kind::SEQUENCE)
            .map_err(|e| e.to_string())?
        {
            Some(bytes) => Some(
                std::str::from_utf8(&bytes)
                    .ok()
                    .and_then(|t| t.trim().parse::<u128>().ok())
                    .ok_or_else(|| {
                        format!(
                            "{}: not a number (gate writes it; remove it and gate takes the order from the receipts)",
                            path.display()
                        )
                    })?,
            ),
            None => None,
        };
        // The receipts bound it too: a lost `sequence` never sends the
        // order back behind them.
        let newest = self
            .newest_first(acceptance_id)
            .map_err(|e| e.to_string())?
            .find_map(|f| f.started_ns);
        let next = [Some(now_ns), last.map(|n| n + 1), newest.map(|n| n + 1)]
            .into_iter()
            .flatten()
            .max()
            .expect("now_ns is always there");
        fsutil::write_atomic(&path, format!("{next}\n").as_bytes(), None)
            .map_err(|e| e.to_string())?;
        Ok(next)
    }

    /// Record a receipt: a new file, written whole and atomically.
    pub fn record(&self, r: &Receipt) -> Result<PathBuf, FsError> {
        let name = format!("{}-{}.json", r.started_ns, r.evidence);
        let path = self.receipts_dir(&r.acceptance_id).join(name);
        let mut text = serde_json::to_string_pretty(r).expect("a receipt always serialises");
        text.push('\n');
        fsutil::write_atomic(&path, text.as_bytes(), None)?;
        Ok(path)
    }

    /// The receipt files of `acceptance_id`, newest attempt first, each read only
    /// when the iterator reaches it.
    ///
    /// The order comes from the names (`<started_ns>-<evidence>.json`, as
    /// [`Store::record`] writes them), so finding the latest attempt reads
    /// no older file. A name that does not start with a start time comes
    /// first: it cannot be shown to be older than anything.
    pub fn newest_first(
        &self,
        acceptance_id: &str,
    ) -> Result<impl Iterator<Item = ReceiptFile> + use<>, FsError> {
        let dir = self.receipts_dir(acceptance_id);
        let mut files = Vec::new();
        let entries = match fs::read_dir(&dir) {
            Ok(e) => Some(e),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(FsError::new(&dir, "list", e)),
        };
        for entry in entries.into_iter().flatten() {
            let entry = entry.map_err(|e| FsError::new(&dir, "list", e))?;
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some("json") {
                continue; // temporary files of a write in progress
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let started_ns = name
                .split_once('-')
                .and_then(|(ns, _)| ns.bytes().all(|b| b.is_ascii_digit()).then_some(ns))
                .and_then(|ns| ns.parse::<u128>().ok());
            files.push((started_ns, name, path));
        }
        // Newest first: unordered names, then by start, then by evidence
        // (the rest of the name) as `state` breaks ties.
        files.sort_by(|a, b| (b.0.is_none(), b.0, &b.1).cmp(&(a.0.is_none(), a.0, &a.1)));
        Ok(files
            .into_iter()
            .map(|(started_ns, _, path)| ReceiptFile::read(path, started_ns)))
    }

    /// Mark a run as under way; the marker's lock is held until the guard drops.
    ///
    /// The marker is created under a temporary name, locked and written, and
    /// only then renamed into place (the lock belongs to the open file, so it
    /// survives the rename): a reader never sees a marker that is not yet
    /// locked, which it would take for a dead run's leftover and remove.
    pub fn start_run(&self, acceptance_id: &str, marker: &RunMarker) -> Result<RunGuard, FsError> {
        use std::io::Write;
        let dir = self.running_dir(acceptance_id);
        fs::create_dir_all(&dir).map_err(|e| FsError::new(&dir, "create directory", e))?;
        let name = format!("{}-{}", marker.pid, marker.nonce);
        let tmp = dir.join(format!(".{name}.tmp"));
        let path = dir.join(format!("{name}.json"));
        let file = fs::OpenOptions::new()
            .create_new(true)
            .write(true)
            .open(&tmp)
            .map_err(|e| FsError::new(&tmp, "create", e))?;
        let placed = (|| {
            file.lock().map_err(|e| FsError::new(&tmp, "lock", e))?;
            let text = serde_json::to_string(marker).expect("a marker always serialises");
            (&file)
                .write_all(text.as_bytes())
                .and_then(|()| file.sync_all())
                .map_err(|e| FsError::new(&tmp, "write", e))?;
            fs::rename(&tmp, &path).map_err(|e| FsError::new(&path, "create", e))
        })();
        if let Err(e) = placed {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
        Ok(RunGuard { path, _file: file })
    }

    /// Runs of `acceptance_id` under way now: markers whose lock a live process holds.
    /// Leftovers of dead runs are removed (a temporary marker only once it is
    /// a minute old: a younger one may be a run starting now, not yet locked).
    ///
    /// A directory that cannot be listed is an error: a run it hides would
    /// let the receipts before it decide (docs/receipts.md).
    pub fn live_runs(&self, acceptance_id: &str) -> Result<Vec<RunMarker>, FsError> {
        let dir = self.running_dir(acceptance_id);
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(FsError::new(&dir, "list", e)),
        };
        let mut live = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| FsError::new(&dir, "list", e))?;
            let path = entry.path();
            let placed = path.extension().and_then(|e| e.to_str()) == Some("json");
            // Guarded: a FIFO or a link in place of a marker is not one.
            let Ok(Some((file, _))) = fsutil::open_within(
                &dir,
                Path::new(&entry.file_name()),
                fsutil::Kind::RUN_MARKER,
            ) else {
                continue;
            };
            match file.try_lock() {
                Err(fs::TryLockError::WouldBlock) => {
                    use std::io::Read;
                    let mut bytes = Vec::new();
                    if placed
                        && (&file)
                            .take(fsutil::Kind::RUN_MARKER.max)
                            .read_to_end(&mut bytes)
                            .is_ok()
                        && let Ok(marker) = serde_json::from_slice(&bytes)
                    {
                        live.push(marker);
                    }
                }
                Ok(()) => {
                    // Nobody holds it: a dead run's leftover.
                    let old = || {
                        file.metadata()
                            .and_then(|m| m.modified())
                            .ok()
                            .and_then(|t| t.elapsed().ok())
                            .is_some_and(|age| age.as_secs() >= 60)
                    };
                    if placed || old() {
                        let _ = fs::remove_file(&path);
                    }
                }
                Err(_) => {}
            }
        }
        Ok(live)
    }
}

/// One receipt file, read: the receipt, or why it cannot be trusted.
#[derive(Debug, Clone)]
pub struct ReceiptFile {
    pub path: PathBuf,
    /// The start its name gives, `None` when the name has none.
    pub started_ns: Option<u128>,
    pub receipt: Result<Receipt, String>,
}

impl ReceiptFile {
    /// Read and decode the file at `path`, named with `started_ns`. A
    /// receipt of another schema, or whose start disagrees with its name,
    /// is unreadable too: this gate cannot order or judge it.
    fn read(path: PathBuf, started_ns: Option<u128>) -> ReceiptFile {
        let receipt = fsutil::read_file(&path, fsutil::Kind::RECEIPT)
            .map_err(|e| e.to_string())
            .and_then(|b| b.ok_or_else(|| "removed while read".to_string()))
            .and_then(|b| serde_json::from_slice::<Receipt>(&b).map_err(|e| e.to_string()))
            .and_then(|r| {
                if r.schema != RECEIPT_SCHEMA {
                    Err(format!("schema {:?}, not {RECEIPT_SCHEMA:?}", r.schema))
                } else if Some(r.started_ns) != started_ns {
                    Err(format!(
                        "started_ns {} does not match the file name",
                        r.started_ns
                    ))
                } else if ends_before_it_starts(&r) {
                    Err(format!(
                        "it ends ({}) before it starts ({}): not a record of a run",
                        r.ended_at, r.started_at
                    ))
                } else {
                    Ok(r)
                }
            });
        ReceiptFile {
            path,
            started_ns,
            receipt,
        }
    }
}

/// Whether a receipt's end precedes its start (or either time does not
/// parse): such a record is unreadable, never a pass.
fn ends_before_it_starts(r: &Receipt) -> bool {
    use crate::clock::Timestamp;
    match (
        Timestamp::parse(&r.started_at),
        Timestamp::parse(&r.ended_at),
    ) {
        (Ok(start), Ok(end)) => end < start,
        _ => true,
    }
}

/// A receipt file that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    pub path: String,
    /// The start its name gives, `None` when the name has none.
    pub started_ns: Option<u128>,
    pub error: String,
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.error)
    }
}

/// Which receipt decides, as [`select`] found it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// The newest receipt that applies (this worktree's and task's).
    pub latest: Option<Receipt>,
    /// The files newer than `latest` (every file, without one) that could
    /// not be read, newest first. Whose they are cannot be told, so any of
    /// them may be the latest attempt.
    pub unreadable: Vec<Unreadable>,
}

/// Find the latest receipt that `applies` among `newest_first` (as
/// [`Store::newest_first`] gives them), reading no further than it. Pure
/// but for the iterator.
pub fn select(
    newest_first: impl IntoIterator<Item = ReceiptFile>,
    applies: impl Fn(&Receipt) -> bool,
) -> Selection {
    let mut unreadable = Vec::new();
    for file in newest_first {
        match file.receipt {
            Ok(r) if applies(&r) => {
                return Selection {
                    latest: Some(r),
                    unreadable,
                };
            }
            Ok(_) => {}
            Err(error) => unreadable.push(Unreadable {
                path: file.path.display().to_string(),
                started_ns: file.started_ns,
                error,
            }),
        }
    }
    Selection {
        latest: None,
        unreadable,
    }
}

/// What a running marker says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunMarker {
    pub pid: u32,
    pub nonce: String,
    pub started_ns: u128,
    pub worktree: String,
    pub task: Option<String>,
}

/// Removes the running marker (and releases its lock) when dropped.
pub struct RunGuard {
    path: PathBuf,
    _file: fs::File,
}

impl Drop for RunGuard {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// The state of one acceptance check for one worktree and task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    Passed {
        evidence: String,
    },
    Failed {
        evidence: String,
        exit_code: Option<i32>,
    },
    Stale {
        evidence: String,
        why: Staleness,
    },
    Running {
        since_ns: u128,
    },
    Missing,
    /// Freshness cannot be decided now: the current fingerprint is
    /// unavailable (nothing can be fresh), the plan declares no such
    /// acceptance check, or an input could not be read.
    Unknown {
        cause: UnknownCause,
        /// For a fingerprint, the stable reason (`symlink`, …); else a message.
        reason: String,
        path: Option<String>,
    },
}

/// What kind of unknown: each is its own finding cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownCause {
    FingerprintUnavailable,
    UnknownCheck,
    InputUnreadable,
}

impl UnknownCause {
    pub fn as_str(self) -> &'static str {
        match self {
            UnknownCause::FingerprintUnavailable => "fingerprint_unavailable",
            UnknownCause::UnknownCheck => "unknown_check",
            UnknownCause::InputUnreadable => "input_unreadable",
        }
    }
}

/// Why a receipt no longer counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Staleness {
    ContractChanged,
    SourcesChanged,
    SourcesChangedDuringRun,
    /// The run itself could not fingerprint its sources.
    NoFingerprint,
}

impl Staleness {
    pub fn as_str(self) -> &'static str {
        match self {
            Staleness::ContractChanged => "contract changed",
            Staleness::SourcesChanged => "sources changed",
            Staleness::SourcesChangedDuringRun => "sources changed during the run",
            Staleness::NoFingerprint => "the run had no fingerprint",
        }
    }

    pub fn key(self) -> &'static str {
        match self {
            Staleness::ContractChanged => "contract_changed",
            Staleness::SourcesChanged => "sources_changed",
            Staleness::SourcesChangedDuringRun => "sources_changed_during_run",
            Staleness::NoFingerprint => "no_fingerprint",
        }
    }
}

impl State {
    /// The stable name used in reports and pins.
    pub fn name(&self) -> &'static str {
        match self {
            State::Passed { .. } => "passed",
            State::Failed { .. } => "failed",
            State::Stale { .. } => "stale",
            State::Running { .. } => "running",
            State::Missing => "missing",
            State::Unknown { .. } => "unknown",
        }
    }

    /// Rank for "the worst state" (docs/binding.md): unknown, failed, stale,
    /// running, missing, passed — lower is worse.
    pub fn rank(&self) -> u8 {
        match self {
            State::Unknown { .. } => 0,
            State::Failed { .. } => 1,
            State::Stale { .. } => 2,
            State::Running { .. } => 3,
            State::Missing => 4,
            State::Passed { .. } => 5,
        }
    }
}

/// Derive an acceptance check's state: `selection` is this worktree's and
/// task's latest receipt and the unreadable files newer than it; `live` the runs
/// under way; `contract` its contract digest now; `now` its
/// fingerprint now. Pure.
///
/// A live run started after the latest receipt and after every newer
/// unreadable file is `running`. Otherwise an unavailable fingerprint now
/// is `unknown` whatever the receipts say: no receipt can be fresh, and
/// `gate verify` could not make one (so `missing` would point at a run that
/// cannot help). So is a newer receipt file that cannot be read: it may be
/// the latest attempt, and an older receipt must not decide in its place.
/// Then the latest receipt decides: `stale` (contract, sources during the
/// run, sources since), else `failed` or `passed`.
pub fn state(
    selection: &Selection,
    live: &[RunMarker],
    contract: &str,
    now: &Fingerprint,
) -> State {
    let latest = selection.latest.as_ref();
    let newest_unreadable = selection.unreadable.first();
    let latest_live = live.iter().map(|m| m.started_ns).max();
    if let Some(since_ns) = latest_live
        && latest.is_none_or(|r| since_ns > r.started_ns)
        && newest_unreadable.is_none_or(|u| u.started_ns.is_some_and(|ns| since_ns > ns))
    {
        return State::Running { since_ns };
    }
    let now = match now {
        Fingerprint::Unavailable { reason, path } => {
            return State::Unknown {
                cause: UnknownCause::FingerprintUnavailable,
                reason: reason.as_str().to_string(),
                path: path.as_ref().map(|p| p.lossy()),
            };
        }
        Fingerprint::Available { digest, .. } => digest,
    };
    if let Some(u) = newest_unreadable {
        return State::Unknown {
            cause: UnknownCause::InputUnreadable,
            reason: format!(
                "a receipt that may be the latest attempt could not be read: {}",
                u.error
            ),
            path: Some(u.path.clone()),
        };
    }
    let Some(r) = latest else {
        return State::Missing;
    };
    let evidence = r.evidence.clone();
    let stale = |why| State::Stale {
        evidence: evidence.clone(),
        why,
    };
    if r.contract != contract {
        return stale(Staleness::ContractChanged);
    }
    let Some(before) = &r.fingerprint_before.digest else {
        return stale(Staleness::NoFingerprint);
    };
    // An after fingerprint that is unavailable (a symlink appeared during
    // the run) is a change during the run too.
    if r.fingerprint_after.digest.as_ref() != Some(before) {
        return stale(Staleness::SourcesChangedDuringRun);
    }
    if now != before {
        return stale(Staleness::SourcesChanged);
    }
    if r.passed() {
        State::Passed { evidence }
    } else {
        State::Failed {
            evidence,
            exit_code: r.exit_code,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn print(d: &str) -> PrintRecord {
        PrintRecord {
            digest: Some(d.into()),
            entries: Some(1),
            bytes: Some(1),
            unavailable: None,
            path: None,
        }
    }

    fn receipt(ns: u128, exit: i32, before: &str, after: &str) -> Receipt {
        Receipt {
            schema: RECEIPT_SCHEMA.into(),
            evidence: format!("ev-{ns}"),
            acceptance_id: "c".into(),
            contract: "k".into(),
            command: "true".into(),
            fingerprint_before: print(before),
            fingerprint_after: print(after),
            exit_code: Some(exit),
            signal: None,
            started_at: "2026-11-30T10:15:00Z".into(),
            ended_at: "2026-11-30T10:15:12Z".into(),
            started_ns: ns,
            head: None,
            worktree: "/w".into(),
            task: None,
            task_created_at: None,
            baseline: None,
            log: String::new(),
            signature: None,
        }
    }

    /// A receipt file as [`Store::newest_first`] gives it.
    fn file(r: &Receipt) -> ReceiptFile {
        ReceiptFile {
            path: PathBuf::from(format!("{}-{}.json", r.started_ns, r.evidence)),
            started_ns: Some(r.started_ns),
            receipt: Ok(r.clone()),
        }
    }

    fn unreadable(ns: u128) -> ReceiptFile {
        ReceiptFile {
            path: PathBuf::from(format!("{ns}-ev-bad.json")),
            started_ns: Some(ns),
            receipt: Err("torn".into()),
        }
    }

    /// [`state`] over `receipts` (oldest first, all this worktree's and
    /// task's), selected as `evaluate` selects them.
    fn decide(
        receipts: &[&Receipt],
        live: &[RunMarker],
        contract: &str,
        now: &Fingerprint,
    ) -> State {
        let files = receipts.iter().rev().map(|r| file(r));
        state(&select(files, |_| true), live, contract, now)
    }

    fn avail(d: &str) -> Fingerprint {
        Fingerprint::Available {
            digest: d.into(),
            entries: 1,
            bytes: 1,
        }
    }

    #[test]
    fn the_latest_attempt_decides_both_ways() {
        let pass = receipt(1, 0, "a", "a");
        let fail = receipt(2, 1, "a", "a");
        assert_eq!(
            decide(&[&pass, &fail], &[], "k", &avail("a")).name(),
            "failed"
        );
        let pass2 = receipt(3, 0, "a", "a");
        assert_eq!(
            decide(&[&pass, &fail, &pass2], &[], "k", &avail("a")).name(),
            "passed"
        );
    }

    #[test]
    fn staleness_reasons() {
        let r = receipt(1, 0, "a", "a");
        assert_eq!(
            decide(&[&r], &[], "other", &avail("a")),
            State::Stale {
                evidence: "ev-1".into(),
                why: Staleness::ContractChanged
            }
        );
        assert_eq!(
            decide(&[&r], &[], "k", &avail("b")),
            State::Stale {
                evidence: "ev-1".into(),
                why: Staleness::SourcesChanged
            }
        );
        let during = receipt(1, 0, "a", "b");
        assert_eq!(
            decide(&[&during], &[], "k", &avail("b")),
            State::Stale {
                evidence: "ev-1".into(),
                why: Staleness::SourcesChangedDuringRun
            }
        );
        // Stale outranks failed.
        let failed = receipt(1, 1, "a", "a");
        assert_eq!(decide(&[&failed], &[], "k", &avail("b")).name(), "stale");
    }

    #[test]
    fn running_missing_and_unknown() {
        let live = RunMarker {
            pid: 1,
            nonce: "n".into(),
            started_ns: 5,
            worktree: "/w".into(),
            task: None,
        };
        assert_eq!(decide(&[], &[], "k", &avail("a")), State::Missing);
        assert_eq!(
            decide(&[], std::slice::from_ref(&live), "k", &avail("a")).name(),
            "running"
        );
        let older = receipt(9, 0, "a", "a");
        assert_eq!(
            decide(&[&older], std::slice::from_ref(&live), "k", &avail("a")).name(),
            "passed"
        );
        let unavailable = Fingerprint::Unavailable {
            reason: crate::fingerprint::Unavailable::Symlink,
            path: None,
        };
        assert_eq!(decide(&[&older], &[], "k", &unavailable).name(), "unknown");
        // Unknown outranks missing, stale and failed: nothing can be fresh.
        assert_eq!(decide(&[], &[], "k", &unavailable).name(), "unknown");
        assert_eq!(decide(&[&older], &[], "k2", &unavailable).name(), "unknown");
        // …but a live run is still running.
        assert_eq!(
            decide(&[], std::slice::from_ref(&live), "k", &unavailable).name(),
            "running"
        );
    }

    /// Regression: a marker was visible before it was locked, and a status
    /// listing it then took the starting run for a dead one and removed it.
    #[test]
    fn a_marker_is_never_seen_unlocked() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        let marker = |nonce: &str| RunMarker {
            pid: 1,
            nonce: nonce.into(),
            started_ns: 7,
            worktree: "/w".into(),
            task: None,
        };
        let guard = store.start_run("c", &marker("live")).unwrap();
        let dir = tmp.path().join("gate/running/c");
        let names = || {
            let mut n: Vec<String> = fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            n.sort();
            n
        };
        // Only the placed, locked marker: no temporary name is left.
        assert_eq!(names(), ["1-live.json"]);
        // A run that is starting (its temporary marker not locked yet) and
        // a dead run's leftover.
        fs::write(dir.join(".1-starting.tmp"), "").unwrap();
        fs::write(dir.join("1-dead.json"), "{}").unwrap();
        assert_eq!(store.live_runs("c").unwrap(), [marker("live")]);
        assert_eq!(names(), [".1-starting.tmp", "1-live.json"]);
        drop(guard);
        assert_eq!(names(), [".1-starting.tmp"]);
        assert_eq!(store.live_runs("c").unwrap(), []);
    }

    /// Regression: an unreadable file was set aside and the latest readable
    /// receipt decided, so a corrupt newest attempt let an older pass stand.
    #[test]
    fn a_newer_unreadable_receipt_is_unknown_never_an_older_pass() {
        let pass = receipt(1, 0, "a", "a");
        let sel = select([unreadable(2), file(&pass)], |_| true);
        assert_eq!(sel.latest.as_ref(), Some(&pass));
        assert_eq!(
            state(&sel, &[], "k", &avail("a")),
            State::Unknown {
                cause: UnknownCause::InputUnreadable,
                reason: "a receipt that may be the latest attempt could not be read: torn".into(),
                path: Some("2-ev-bad.json".into()),
            }
        );
        // Whose it is cannot be told: another worktree's readable receipt
        // in between changes nothing.
        let mut theirs = receipt(3, 0, "a", "a");
        theirs.worktree = "/other".into();
        let sel = select([file(&theirs), unreadable(2), file(&pass)], |r| {
            r.worktree == "/w"
        });
        assert_eq!(state(&sel, &[], "k", &avail("a")).name(), "unknown");
        // Without any readable receipt: unknown, not missing.
        let sel = select([unreadable(2)], |_| true);
        assert_eq!(state(&sel, &[], "k", &avail("a")).name(), "unknown");
        // A name without a start cannot be shown older: it counts as newest.
        let nameless = ReceiptFile {
            path: PathBuf::from("junk.json"),
            started_ns: None,
            receipt: Err("no start in the name".into()),
        };
        let sel = select([nameless, file(&pass)], |_| true);
        assert_eq!(state(&sel, &[], "k", &avail("a")).name(), "unknown");
        // An unreadable file older than the latest receipt is never read.
        let newer = receipt(3, 0, "a", "a");
        let mut read = 0;
        let files = [file(&newer), unreadable(2), file(&pass)]
            .into_iter()
            .inspect(|_| read += 1);
        let sel = select(files, |_| true);
        assert_eq!(read, 1);
        assert!(sel.unreadable.is_empty());
        assert_eq!(state(&sel, &[], "k", &avail("a")).name(), "passed");
    }

    #[test]
    fn a_live_run_after_an_unreadable_receipt_is_running() {
        let pass = receipt(1, 0, "a", "a");
        let sel = select([unreadable(5), file(&pass)], |_| true);
        let live = |started_ns| RunMarker {
            pid: 1,
            nonce: "n".into(),
            started_ns,
            worktree: "/w".into(),
            task: None,
        };
        assert_eq!(state(&sel, &[live(6)], "k", &avail("a")).name(), "running");
        assert_eq!(state(&sel, &[live(4)], "k", &avail("a")).name(), "unknown");
    }

    /// The store orders by name, newest first, and reads a file only when
    /// asked; a receipt it cannot order or judge is unreadable.
    #[test]
    fn the_store_lists_newest_first_by_name() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path());
        for ns in [9, 10, 100] {
            store.record(&receipt(ns, 0, "a", "a")).unwrap();
        }
        let dir = tmp.path().join("gate/receipts/c");
        fs::write(dir.join("junk.json"), "{}").unwrap();
        fs::write(dir.join(".100-ev-x.json.tmp"), "").unwrap();
        // Named 11, says 12.
        let mut liar = receipt(12, 0, "a", "a");
        fs::write(
            dir.join("11-ev-12.json"),
            serde_json::to_vec(&liar).unwrap(),
        )
        .unwrap();
        liar.started_ns = 13;
        liar.schema = "gate.receipt/2".into();
        fs::write(
            dir.join("13-ev-13.json"),
            serde_json::to_vec(&liar).unwrap(),
        )
        .unwrap();
        let got: Vec<(Option<u128>, bool)> = store
            .newest_first("c")
            .unwrap()
            .map(|f| (f.started_ns, f.receipt.is_ok()))
            .collect();
        assert_eq!(
            got,
            [
                (None, false),
                (Some(100), true),
                (Some(13), false),
                (Some(11), false),
                (Some(10), true),
                (Some(9), true),
            ]
        );
        assert_eq!(store.newest_first("none").unwrap().count(), 0);
    }

    #[test]
    fn an_after_fingerprint_that_became_unavailable_is_a_change_during_the_run() {
        let mut r = receipt(1, 0, "a", "a");
        r.fingerprint_after = PrintRecord::of(&Fingerprint::Unavailable {
            reason: crate::fingerprint::Unavailable::Symlink,
            path: None,
        });
        assert_eq!(
            decide(&[&r], &[], "k", &avail("a")),
            State::Stale {
                evidence: "ev-1".into(),
                why: Staleness::SourcesChangedDuringRun
            }
        );
        let mut r = receipt(1, 0, "a", "a");
        r.fingerprint_before.digest = None;
        assert_eq!(
            decide(&[&r], &[], "k", &avail("a")),
            State::Stale {
                evidence: "ev-1".into(),
                why: Staleness::NoFingerprint
            }
        );
    }
}

/// One criterion a task serves, with the acceptance checks that evidence it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Served {
    pub intent: String,
    pub criterion: String,
    pub text: String,
    pub evidence: Vec<String>,
}

/// The criteria a task serves (docs/receipts.md): those its issue serves, or every
/// criterion of the intent it names. Empty for maintenance, exemptions and
/// tasks that name nothing.
pub fn criteria_served(
    plan: &crate::plan::Plan,
    issue: Option<&str>,
    intent: Option<&str>,
) -> Vec<Served> {
    let mut out = Vec::new();
    let mut push = |intent: &crate::plan::Intent, c: &crate::plan::Criterion| {
        out.push(Served {
            intent: intent.id.clone(),
            criterion: c.id.clone(),
            text: c.criterion.clone(),
            evidence: c.evidence.clone(),
        });
    };
    if let Some(issue) = issue.and_then(|i| plan.issue(i)) {
        if let Some(intent) = issue.intent.as_deref().and_then(|i| plan.intent(i)) {
            for id in &issue.serves {
                if let Some(c) = intent.criterion(id) {
                    push(intent, c);
                }
            }
        }
    } else if let Some(intent) = intent.and_then(|i| plan.intent(i)) {
        for c in &intent.criteria {
            push(intent, c);
        }
    }
    out
}

/// What a task names (its issue, else its intent) as the plan resolves
/// it, or what no longer resolves: an issue or intent the plan does not
/// have, an issue whose intent is gone, a `serves` naming no criterion of
/// it. Which acceptance checks the task depends on cannot be told then, so
/// it is never read as "depends on no check" (docs/receipts.md).
pub fn resolve_criteria_served(
    plan: &crate::plan::Plan,
    issue: Option<&str>,
    intent: Option<&str>,
) -> Result<Vec<Served>, String> {
    if let Some(id) = issue {
        let issue = plan
            .issue(id)
            .ok_or_else(|| format!("its issue `{id}` is not in the plan"))?;
        if let Some(intent_id) = issue.intent.as_deref() {
            let intent = plan.intent(intent_id).ok_or_else(|| {
                format!("its issue `{id}` serves intent `{intent_id}`, which is not in the plan")
            })?;
            if let Some(missing) = issue.serves.iter().find(|c| intent.criterion(c).is_none()) {
                return Err(format!(
                    "its issue `{id}` serves criterion `{missing}`, which intent `{intent_id}` does not have"
                ));
            }
        }
    } else if let Some(id) = intent
        && plan.intent(id).is_none()
    {
        return Err(format!("its intent `{id}` is not in the plan"));
    }
    Ok(criteria_served(plan, issue, intent))
}

/// The acceptance checks a task depends on: the evidence of the criteria
/// it serves, each once, in first-mention order.
pub fn dependent_acceptance_checks(served: &[Served]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in served {
        for id in &s.evidence {
            if !out.contains(id) {
                out.push(id.clone());
            }
        }
    }
    out
}

/// An acceptance check's state now (one the plan declares), with what
/// was read to decide it.
#[derive(Debug, Clone)]
pub struct AcceptanceCheckStatus {
    pub id: String,
    pub state: State,
    /// Receipt files newer than `latest` that could not be read (reported,
    /// never trusted): `path: error`.
    pub unreadable: Vec<String>,
    /// The latest counted receipt, when there is one.
    pub latest: Option<Receipt>,
}

/// What a status evaluation needs to know about where it runs.
pub struct Context<'a> {
    pub repo: &'a crate::git::Repo,
    pub store: &'a Store,
    pub plan: &'a crate::plan::Plan,
    pub policy: &'a crate::policy::Policy,
    /// The canonical work tree path receipts must match.
    pub worktree: &'a str,
    /// The task receipts must match (`None`: receipts made without a task).
    pub task: Option<&'a str>,
    /// That task's `created_at`: a receipt made for an earlier task under
    /// the same id does not match.
    pub task_created_at: Option<&'a str>,
    /// That task's baseline: the contract of a check that uses it covers it
    /// ([`crate::plan::AcceptanceCheck::contract_at`]).
    pub task_baseline: Option<&'a str>,
    /// What the task touched, covered by every acceptance check's fingerprint.
    pub touched: &'a crate::fingerprint::Touched,
    /// The index this evaluation reads (`None`: each fingerprint reads it).
    pub index: Option<&'a crate::git::IndexSnapshot>,
    /// Stats taken ahead for this evaluation ([`crate::fingerprint::Prefetch`]);
    /// `None` where files change between fingerprints (`gate verify`).
    pub prefetch: Option<&'a crate::fingerprint::Prefetch>,
    /// Where a fingerprint's meter goes (`crate::progress`).
    pub progress: crate::progress::Sink,
}

/// The fingerprint of `acceptance`'s sources plus the touched paths, now.
pub fn fingerprint_now(
    ctx: &Context,
    acceptance: &crate::plan::AcceptanceCheck,
) -> Result<Fingerprint, crate::git::GitError> {
    fingerprint_seen(ctx, acceptance).map(|(fp, _)| fp)
}

/// [`fingerprint_now`], with how it was taken: its
/// [`Stats::identity`](crate::fingerprint::Stats) tells a file replaced
/// with the same bytes from one left alone.
pub fn fingerprint_seen(
    ctx: &Context,
    acceptance: &crate::plan::AcceptanceCheck,
) -> Result<(Fingerprint, crate::fingerprint::Stats), crate::git::GitError> {
    // One reading of the index for the touched paths and the fingerprint.
    let read;
    let index = match ctx.index {
        Some(index) => index,
        None => {
            read = ctx.repo.read_index()?;
            &read
        }
    };
    let touched = ctx
        .touched
        .for_sources_in(ctx.repo, index, &acceptance.sources)?;
    let inputs = crate::fingerprint::Inputs {
        sources: &acceptance.sources,
        touched: &touched,
        max_entries: ctx.policy.receipts.max_entries,
        max_bytes: ctx.policy.receipts.max_bytes,
    };
    crate::fingerprint::fingerprint_in(
        ctx.repo,
        index,
        &inputs,
        &ctx.store.cache_dir(),
        ctx.prefetch,
        ctx.progress,
    )
}

/// The state of each acceptance check in `acceptance_ids`, now.
pub fn evaluate(ctx: &Context, acceptance_ids: &[String]) -> Vec<AcceptanceCheckStatus> {
    // Acceptance checks with the same sources share one fingerprint (and one
    // status of the rest of the tree): it is the same question asked at the same time.
    let mut prints = Prints::new();
    acceptance_ids
        .iter()
        .map(|id| evaluate_one(ctx, id, &mut prints))
        .collect()
}

/// Fingerprints of one evaluation, by sources (an error as its message).
type Prints = std::collections::HashMap<Vec<String>, Result<Fingerprint, String>>;

fn evaluate_one(ctx: &Context, id: &str, prints: &mut Prints) -> AcceptanceCheckStatus {
    let unknown = |cause, reason: String, unreadable, latest| AcceptanceCheckStatus {
        id: id.to_string(),
        state: State::Unknown {
            cause,
            reason,
            path: None,
        },
        unreadable,
        latest,
    };
    let Some(acceptance) = ctx.plan.acceptance_check(id) else {
        return unknown(
            UnknownCause::UnknownCheck,
            "unknown_check".into(),
            vec![],
            None,
        );
    };
    let mine_only =
        |worktree: &str, task: Option<&str>| worktree == ctx.worktree && task == ctx.task;
    // Live runs first, then receipts: a run that ends in between has
    // recorded its receipt before it released its marker, so it is seen
    // either as running or by its receipt — never as neither.
    let live: Vec<RunMarker> = match ctx.store.live_runs(id) {
        Ok(runs) => runs
            .into_iter()
            .filter(|m| mine_only(&m.worktree, m.task.as_deref()))
            .collect(),
        Err(e) => {
            return unknown(
                UnknownCause::InputUnreadable,
                format!("the runs under way cannot be listed: {e}"),
                vec![],
                None,
            );
        }
    };
    let files = match ctx.store.newest_first(id) {
        Ok(f) => f,
        Err(e) => {
            return unknown(
                UnknownCause::InputUnreadable,
                format!("receipts unreadable: {e}"),
                vec![],
                None,
            );
        }
    };
    let selection = select(files, |r| {
        mine_only(&r.worktree, r.task.as_deref()) && same_task(r, ctx.task_created_at)
    });
    let unreadable = selection.unreadable.iter().map(|u| u.to_string()).collect();
    let now = prints
        .entry(acceptance.sources.clone())
        .or_insert_with(|| fingerprint_now(ctx, acceptance).map_err(|e| e.to_string()))
        .clone();
    let now = match now {
        Ok(f) => f,
        Err(e) => {
            return unknown(
                UnknownCause::InputUnreadable,
                format!("the sources could not be listed: {e}"),
                unreadable,
                selection.latest,
            );
        }
    };
    AcceptanceCheckStatus {
        id: id.to_string(),
        state: state(
            &selection,
            &live,
            &acceptance.contract_at(ctx.task_baseline),
            &now,
        ),
        unreadable,
        latest: selection.latest,
    }
}

/// Whether receipt `r` was made for the task created at `created_at` (the
/// task of the evaluation), not for an earlier task that had the same id
/// (its file deleted, a new task started under that id). A receipt of an
/// older gate records no creation time: it counts only when it started
/// after this task was created (docs/receipts.md).
fn same_task(r: &Receipt, created_at: Option<&str>) -> bool {
    use crate::clock::Timestamp;
    let Some(created_at) = created_at else {
        return true;
    };
    match r.task_created_at.as_deref() {
        Some(recorded) => recorded == created_at,
        None => match (
            Timestamp::parse(&r.started_at),
            Timestamp::parse(created_at),
        ) {
            (Ok(started), Ok(created)) => started >= created,
            _ => false,
        },
    }
}

/// The evidence state of a criterion: the worst state of its acceptance
/// checks, or `unevidenced` when it names none (docs/binding.md).
pub fn criterion_state(served: &Served, statuses: &[AcceptanceCheckStatus]) -> &'static str {
    if served.evidence.is_empty() {
        return "unevidenced";
    }
    served
        .evidence
        .iter()
        .map(|id| {
            statuses
                .iter()
                .find(|s| &s.id == id)
                .map_or((0, "unknown"), |s| (s.state.rank(), s.state.name()))
        })
        .min_by_key(|&(rank, _)| rank)
        .map_or("unknown", |(_, name)| name)
}
