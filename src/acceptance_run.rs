//! Running an acceptance check's command the one way gate runs it (`sh -c`
//! at the repository root, stdin closed, `GATE_CHECK` and `GATE_EVIDENCE`
//! set, its output copied to a log and to ours), naming the run, and
//! signing the receipt it leads to: shared by `gate verify` and `gate check
//! --range --run-unproved` (docs/receipts.md). It composes no message: the
//! door hands it what to say.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use crate::error::Failure;
use crate::git::Repo;
use crate::receipts::Receipt;

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
pub fn sign(repo: &Repo, receipt: &mut Receipt) -> Signing {
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

/// Run `sh -c command` at `root`, copying its stdout and stderr to ours and to
/// the log as they come — its stdout to our stderr when `json` (stdout then
/// holds only the document). Returns the exit code, or the signal that
/// ended it.
///
/// The output closes only when every process holding it has exited, and a
/// background process the command left running (`server &`) may hold it
/// for ever. So once the command has exited, the copying gets
/// [`OUTPUT_GRACE`] to finish; after that it stops (the log says so) and is
/// left to end with gate, and the run is recorded.
pub fn run_command(
    root: &Path,
    command: &str,
    acceptance_id: &str,
    evidence: &str,
    log_path: &Path,
    json: bool,
    not_captured: &Said,
) -> Result<(Option<i32>, Option<i32>), Failure> {
    if let Some(dir) = log_path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::unknown(format!("{}: {e}", dir.display())))?;
    }
    let log = crate::fsutil::create_truncated(log_path)?;
    let log = Arc::new(Mutex::new(log));
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(root)
        .env("GATE_CHECK", acceptance_id)
        .env("GATE_EVIDENCE", evidence)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Failure::unknown(format!("cannot start sh -c {command:?}: {e}")))?;
    let stdout = child.stdout.take().expect("stdout was piped");
    let stderr = child.stderr.take().expect("stderr was piped");
    let capturing = Arc::new(AtomicBool::new(true));
    let (closed, copies_closed) = mpsc::channel();
    let ours: Box<dyn Write + Send> = if json {
        Box::new(std::io::stderr())
    } else {
        Box::new(std::io::stdout())
    };
    spawn_tee(stdout, ours, &log, &capturing, &closed);
    spawn_tee(stderr, std::io::stderr(), &log, &capturing, &closed);
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
    use std::os::unix::process::ExitStatusExt;
    Ok((status.code(), status.signal()))
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
pub fn compact(timestamp: &str) -> String {
    timestamp
        .chars()
        .filter(|c| *c != '-' && *c != ':')
        .collect()
}

/// Twelve hex digits unique to this run: the clock, the pid and a counter, hashed.
pub fn nonce(started_ns: u128) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let seed = format!(
        "{started_ns}-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    crate::digest::sha256_hex(seed.as_bytes())[..12].to_string()
}
