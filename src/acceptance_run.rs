//! Running an acceptance check's command the one way gate runs it (`sh -c`
//! at the repository root, stdin closed, `GATE_CHECK` and `GATE_EVIDENCE`
//! set, and under a task `GATE_BASELINE` and `{BASELINE}` rewritten to the
//! task's baseline), its output copied to a log and to ours), naming the run, and
//! signing the receipt it leads to: shared by `gate verify` and `gate check
//! --range --run-unproved` (docs/receipts.md). It composes no message: the
//! door hands it what to say.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use crate::clock::Timestamp;
use crate::error::Failure;
use crate::fingerprint::{self, Fingerprint};
use crate::git::Repo;
use crate::plan::AcceptanceCheck;
use crate::receipts::{PrintRecord, RECEIPT_SCHEMA, Receipt, RunMarker, Store};

/// One run of an acceptance check, to be recorded as a receipt.
pub struct Run<'a> {
    pub repo: &'a Repo,
    /// Where `sh -c` runs: the work tree's root.
    pub root: &'a Path,
    pub store: &'a Store,
    /// The declaration run: its command, and the contract the receipt names.
    pub acceptance: &'a AcceptanceCheck,
    /// The receipt key of the work tree ([`crate::ctx::worktree_key`]).
    pub worktree: String,
    /// The task it is made for: its id and its record's `created_at`.
    pub task: Option<(String, String)>,
    /// That task's baseline (a full commit id): `GATE_BASELINE`, and what
    /// `{BASELINE}` in the command is rewritten to.
    pub baseline: Option<String>,
    /// HEAD when it starts.
    pub head: Option<String>,
    /// The command's stdout goes to our stderr (our stdout holds a
    /// document).
    pub stdout_to_stderr: bool,
    /// The run's writer: the command's output is copied through the
    /// streams it gives.
    pub ui: &'a crate::ui::Ui,
}

/// What a door says while a run goes on (this module composes no message).
pub struct Sayings<'a> {
    /// The run starts, its log at this path.
    pub started: &'a dyn Fn(&Path),
    /// Its output is no longer captured.
    pub not_captured: Said<'a>,
    /// A configured key could not sign: why.
    pub not_signed: &'a dyn Fn(&str),
}

/// A run recorded.
pub struct Ran {
    pub receipt: Receipt,
    /// The fingerprint after the run (unavailable when it failed).
    pub after: Fingerprint,
    pub signing: Signing,
    pub log_path: std::path::PathBuf,
    /// The error the fingerprint after the run gave: the receipt is then
    /// recorded with its after fingerprint unavailable, so it is stale.
    pub after_failed: Option<Failure>,
}

impl Run<'_> {
    /// Take the run's place in the order of attempts (under a lock, never
    /// going back whatever the clock does), hold its running marker, run
    /// the command, fingerprint the sources again (`after`), and make, sign
    /// and record the receipt with `before`. The run happened once the
    /// command has exited: an error after that never loses the receipt.
    pub fn record(
        &self,
        before: &Fingerprint,
        after: impl FnOnce() -> Result<Fingerprint, Failure>,
        say: &Sayings,
    ) -> Result<Ran, Failure> {
        let acceptance = self.acceptance;
        // A command that names a baseline there is none of is not run: it
        // could not be run as written.
        let baseline = self.baseline.as_deref();
        let command = acceptance.command_at(baseline).map_err(|e| {
            Failure::unknown(e.to_string()).hint(format!(
                "run it under the task whose work it checks (`gate start …`, or `gate task switch ID`), or name a commit instead of {} in .gate/plan.yaml",
                crate::plan::BASELINE_PLACEHOLDER
            ))
        })?;
        let started = std::time::SystemTime::now();
        let started_ns = self
            .store
            .next_order(
                &acceptance.id,
                started
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos()),
            )
            .map_err(Failure::unknown)?;
        let started_at = Timestamp::from_system_time(started);
        let nonce = nonce(started_ns);
        let evidence = format!("ev-{}-{nonce}", compact(&started_at.to_string()));
        let (log_path, log_rel) = self.store.log_path(&acceptance.id, &evidence);
        let marker = RunMarker {
            pid: std::process::id(),
            nonce,
            started_ns,
            worktree: self.worktree.clone(),
            task: self.task.as_ref().map(|(id, _)| id.clone()),
        };
        let guard = self.store.start_run(&acceptance.id, &marker)?;
        (say.started)(&log_path);
        let (exit_code, signal) = run_command(
            self.root,
            &command,
            baseline,
            &acceptance.id,
            &evidence,
            &log_path,
            self.ui.command_streams(self.stdout_to_stderr),
            &say.not_captured,
        )?;
        let ended_at = Timestamp::now();
        let (after, after_failed) = match after() {
            Ok(f) => (f, None),
            Err(e) => (
                Fingerprint::Unavailable {
                    reason: fingerprint::Unavailable::Unreadable(e.message.clone()),
                    path: None,
                },
                Some(e),
            ),
        };
        let mut receipt = Receipt {
            schema: RECEIPT_SCHEMA.into(),
            evidence,
            acceptance_id: acceptance.id.clone(),
            contract: acceptance.contract_at(baseline),
            command: acceptance.command.clone(),
            fingerprint_before: PrintRecord::of(before),
            fingerprint_after: PrintRecord::of(&after),
            exit_code,
            signal,
            started_at: started_at.to_string(),
            ended_at: ended_at.to_string(),
            started_ns,
            head: self.head.clone(),
            worktree: self.worktree.clone(),
            task: self.task.as_ref().map(|(id, _)| id.clone()),
            task_created_at: self.task.as_ref().map(|(_, at)| at.clone()),
            baseline: baseline
                .filter(|_| acceptance.uses_baseline())
                .map(str::to_string),
            log: log_rel,
            signature: None,
        };
        // Signed before it is recorded: the file and the note it travels
        // in carry the same signature (docs/receipts.md, "Signed receipts").
        let signing = sign(self.repo, &mut receipt);
        if let Signing::Failed(why) = &signing {
            (say.not_signed)(why);
        }
        self.store.record(&receipt)?;
        drop(guard);
        Ok(Ran {
            receipt,
            after,
            signing,
            log_path,
            after_failed,
        })
    }
}

/// The fingerprint after a run, as the receipt records it: `after`, unless
/// the sources' stat identity moved since `before` while their bytes came
/// back the same — a file replaced during the run and restored, or
/// rewritten — which a fresh receipt must never hide: it is then
/// `changed_while_read`, and the receipt is stale.
pub fn held_still(
    before: &(Fingerprint, fingerprint::Stats),
    after: (Fingerprint, fingerprint::Stats),
) -> Fingerprint {
    let same_bytes = before.0 == after.0;
    match (before.1.identity, after.1.identity) {
        (Some(a), Some(b)) if same_bytes && a != b => Fingerprint::Unavailable {
            reason: fingerprint::Unavailable::ChangedWhileRead,
            path: None,
        },
        _ => after.0,
    }
}

/// What to say when a process the command left running holds its output
/// open past [`OUTPUT_GRACE`]: the line written into the log, and how it
/// is said to the person running it.
pub struct Said<'a> {
    pub log: String,
    pub say: &'a dyn Fn(),
}

/// Whether and how a receipt was signed.
pub enum Signing {
    /// Signed: with which format and key (`ssh key ~/.ssh/id_ed25519.pub`).
    Signed(String),
    /// No signing key is configured (`user.signingKey`).
    NoKey,
    /// `gate.signReceipts` is false.
    Off,
    /// A key is configured, and the signature could not be made: why.
    Failed(String),
}

/// Sign a fresh `receipt` with the user's git signing key, the way git
/// signs commits (docs/receipts.md, "Signed receipts"). A receipt that is
/// not fresh never travels and is not signed.
fn sign(repo: &Repo, receipt: &mut Receipt) -> Signing {
    let Some(payload) = receipt.payload() else {
        return Signing::Off;
    };
    let get = |key: &str| repo.config_string(key);
    if let Some(value) = get("gate.signreceipts") {
        match crate::git::config_bool(&value) {
            Some(false) => return Signing::Off,
            Some(true) => {}
            None => {
                return Signing::Failed(format!(
                    "gate.signReceipts is `{value}`, not true or false"
                ));
            }
        }
    }
    let config = match crate::signing::config(get) {
        Ok(Some(config)) => config,
        Ok(None) => return Signing::NoKey,
        Err(why) => return Signing::Failed(why),
    };
    match crate::signing::sign(&config, &payload) {
        Ok(signature) => {
            receipt.signature = Some(signature);
            Signing::Signed(format!("{} key {}", config.format.as_str(), config.key))
        }
        Err(why) => Signing::Failed(why),
    }
}

/// How long output may still come once the command has exited: what its
/// last writes left in the pipes, or a short-lived child's.
pub const OUTPUT_GRACE: Duration = Duration::from_secs(2);

/// Run `sh -c command` at `root` (`GATE_BASELINE` set to `baseline` when
/// there is one), copying its stdout and stderr to the streams given
/// (`crate::ui::Ui::command_streams`) and to the log as they come. Returns the exit code, or the signal that
/// ended it.
///
/// The output closes only when every process holding it has exited, and a
/// background process the command left running (`server &`) may hold it
/// for ever. So once the command has exited, the copying gets
/// [`OUTPUT_GRACE`] to finish; after that it stops (the log says so) and is
/// left to end with gate, and the run is recorded.
// Each argument is one thing the run is told; a struct would only name them again.
#[allow(clippy::too_many_arguments)]
fn run_command(
    root: &Path,
    command: &str,
    baseline: Option<&str>,
    acceptance_id: &str,
    evidence: &str,
    log_path: &Path,
    (ours, theirs): (Box<dyn Write + Send>, Box<dyn Write + Send>),
    not_captured: &Said,
) -> Result<(Option<i32>, Option<i32>), Failure> {
    if let Some(dir) = log_path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::unknown(format!("{}: {e}", dir.display())))?;
    }
    let log = crate::fsutil::create_truncated(log_path)?;
    let log = Arc::new(Mutex::new(log));
    let mut child = Command::new("sh");
    child
        .arg("-c")
        .arg(command)
        .current_dir(root)
        .env("GATE_CHECK", acceptance_id)
        .env("GATE_EVIDENCE", evidence);
    match baseline {
        Some(baseline) => child.env(crate::plan::BASELINE_VARIABLE, baseline),
        // Not one the caller's environment happens to hold.
        None => child.env_remove(crate::plan::BASELINE_VARIABLE),
    };
    let mut child = child
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Failure::unknown(format!("cannot start sh -c {command:?}: {e}")))?;
    let stdout = child.stdout.take().expect("stdout was piped");
    let stderr = child.stderr.take().expect("stderr was piped");
    let capturing = Arc::new(AtomicBool::new(true));
    let (closed, copies_closed) = mpsc::channel();
    spawn_tee(stdout, ours, &log, &capturing, &closed);
    spawn_tee(stderr, theirs, &log, &capturing, &closed);
    let status = child
        .wait()
        .map_err(|e| Failure::unknown(format!("waiting for the check: {e}")))?;
    let deadline = Instant::now() + OUTPUT_GRACE;
    let mut open = 2;
    while open > 0
        && copies_closed
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .is_ok()
    {
        open -= 1;
    }
    let mut file = log.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if open > 0 {
        // Under the log's lock: no copy writes to the log after this note.
        capturing.store(false, Ordering::SeqCst);
        let _ = file.write_all(not_captured.log.as_bytes());
        (not_captured.say)();
    }
    let _ = file.sync_all();
    drop(file);
    Ok((status.code(), crate::platform::signal_of(&status)))
}

/// [`tee`] on a thread of its own, saying on `closed` when it is done. Never
/// joined: a stream a background process holds open may never close.
fn spawn_tee(
    from: impl Read + Send + 'static,
    to: impl Write + Send + 'static,
    log: &Arc<Mutex<std::fs::File>>,
    capturing: &Arc<AtomicBool>,
    closed: &mpsc::Sender<()>,
) {
    let (log, capturing, closed) = (Arc::clone(log), Arc::clone(capturing), closed.clone());
    std::thread::spawn(move || {
        tee(from, to, &log, &capturing);
        let _ = closed.send(());
    });
}

/// Copy a child's stream to one of ours and to the log until it closes, or
/// until `capturing` is cleared.
fn tee(
    mut from: impl Read,
    mut to: impl Write,
    log: &Mutex<std::fs::File>,
    capturing: &AtomicBool,
) {
    let mut buf = [0u8; 8192];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if !capturing.load(Ordering::SeqCst) {
            break;
        }
        let _ = to.write_all(&buf[..n]).and_then(|()| to.flush());
        let mut file = log.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if !capturing.load(Ordering::SeqCst) {
            break;
        }
        let _ = file.write_all(&buf[..n]);
    }
}

/// `2026-11-30T01:02:03Z` → `20261130T010203Z`.
fn compact(timestamp: &str) -> String {
    timestamp
        .chars()
        .filter(|c| *c != '-' && *c != ':')
        .collect()
}

/// Twelve hex digits unique to this run: the clock, the pid and a counter, hashed.
fn nonce(started_ns: u128) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let seed = format!(
        "{started_ns}-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    crate::digest::sha256_hex(seed.as_bytes())[..12].to_string()
}
