//! Signed receipts (docs/receipts.md, "Signed receipts"): the bytes a
//! receipt's signature covers, making a signature with the user's git
//! signing key through the programs git uses (`ssh-keygen -Y sign`, `gpg
//! -bsau`), and verifying one against signers read from a trusted revision.
//!
//! It runs those programs and nothing else; it reads no policy, no work
//! tree file and no git object itself: the caller hands it the signing
//! configuration and the trusted signers' bytes. Verifying needs no private
//! key and no network: `ssh-keygen -Y verify` with an allowed-signers file,
//! or `gpg --verify` in a keyring made for the call from the trusted keys.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Serialize;

/// The SSH signature namespace of a receipt: a receipt's signature is never
/// a valid commit signature (`git`), nor the other way round.
pub const NAMESPACE: &str = "gate-receipt";

/// The first field of the signed bytes: names their layout.
pub const PAYLOAD_SCHEMA: &str = "gate.receipt-signature/1";

/// The most bytes a signature, or a program's answer, may have.
const MAX_OUTPUT: u64 = 64 << 10;

/// What a receipt's signature covers, in this order: its compact JSON is
/// the signed bytes (docs/receipts.md, "Signed receipts"). Everything that
/// decides whether the receipt proves a check on some content: the check,
/// the run, its contract and fingerprint, its outcome, its order, its task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Payload<'a> {
    pub schema: &'a str,
    pub check: &'a str,
    pub evidence: &'a str,
    pub contract: &'a str,
    pub fingerprint: &'a str,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub passed: bool,
    pub started_at: &'a str,
    pub ended_at: &'a str,
    /// As a decimal string: JSON numbers past 2^53 do not survive every reader.
    pub started_ns: String,
    pub task: Option<&'a str>,
}

impl Payload<'_> {
    /// The signed bytes.
    pub fn bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("a payload serialises")
    }
}

/// A signature format, as git's `gpg.format` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Ssh,
    OpenPgp,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Ssh => "ssh",
            Format::OpenPgp => "openpgp",
        }
    }

    /// The format of an armored signature, by its first line.
    pub fn of_signature(armored: &str) -> Option<Format> {
        let first = armored.trim_start().lines().next()?;
        match first.trim_end() {
            "-----BEGIN SSH SIGNATURE-----" => Some(Format::Ssh),
            "-----BEGIN PGP SIGNATURE-----" => Some(Format::OpenPgp),
            _ => None,
        }
    }
}

/// How this user signs, read from git's configuration the way git reads
/// it for commits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    pub format: Format,
    /// `user.signingKey`: for SSH a key file (public or private) or a
    /// literal public key (`ssh-ed25519 AAAA…`, `key::…`); for OpenPGP a
    /// key id or user id.
    pub key: String,
    /// `gpg.ssh.program` or `gpg.program` (`gpg.openpgp.program`).
    pub program: String,
}

/// The git configuration keys signing reads, by name: the caller reads
/// them (`Repo::config_string`), so this module touches no repository.
pub fn config(get: impl Fn(&str) -> Option<String>) -> Result<Option<Config>, String> {
    let format = match get("gpg.format").as_deref().map(str::to_ascii_lowercase) {
        None => Format::OpenPgp,
        Some(f) if f == "openpgp" => Format::OpenPgp,
        Some(f) if f == "ssh" => Format::Ssh,
        Some(other) => {
            return Err(format!(
                "gpg.format is `{other}`: gate signs receipts with `ssh` or `openpgp`"
            ));
        }
    };
    let key = match get("user.signingkey").filter(|k| !k.trim().is_empty()) {
        Some(key) => key.trim().to_string(),
        None => match (format, get("gpg.ssh.defaultkeycommand")) {
            (Format::Ssh, Some(command)) if !command.trim().is_empty() => {
                default_ssh_key(&command)?
            }
            _ => return Ok(None),
        },
    };
    let program = match format {
        Format::Ssh => get("gpg.ssh.program").unwrap_or_else(|| "ssh-keygen".into()),
        Format::OpenPgp => get("gpg.openpgp.program")
            .or_else(|| get("gpg.program"))
            .unwrap_or_else(|| "gpg".into()),
    };
    Ok(Some(Config {
        format,
        key,
        program,
    }))
}

/// `gpg.ssh.defaultKeyCommand`'s key: the first line of its output that is
/// a literal key, as git takes it.
fn default_ssh_key(command: &str) -> Result<String, String> {
    let out = run(
        Command::new("sh").args(["-c", command]),
        &[],
        "gpg.ssh.defaultKeyCommand",
    )?;
    if !out.status.success() {
        return Err(format!(
            "gpg.ssh.defaultKeyCommand `{command}` failed: {}",
            said(&out.stderr)
        ));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::trim)
        .find(|l| literal_ssh_key(l).is_some())
        .map(str::to_string)
        .ok_or_else(|| format!("gpg.ssh.defaultKeyCommand `{command}` printed no key"))
}

/// The key of a literal `user.signingKey` (`key::ssh-ed25519 …` or
/// `ssh-ed25519 …`), `None` for a path.
fn literal_ssh_key(key: &str) -> Option<&str> {
    match key.strip_prefix("key::") {
        Some(rest) => Some(rest),
        None => key.starts_with("ssh-").then_some(key),
    }
}

/// Sign `payload` with `config`: the armored signature.
pub fn sign(config: &Config, payload: &[u8]) -> Result<String, String> {
    match config.format {
        Format::Ssh => sign_ssh(config, payload),
        Format::OpenPgp => sign_openpgp(config, payload),
    }
}

fn sign_ssh(config: &Config, payload: &[u8]) -> Result<String, String> {
    let scratch = Scratch::new()?;
    let mut cmd = Command::new(&config.program);
    cmd.args(["-Y", "sign", "-n", NAMESPACE, "-f"]);
    match literal_ssh_key(&config.key) {
        // A literal public key: its private half is in the ssh-agent (`-U`).
        Some(key) => {
            let file = scratch.write("signing-key.pub", format!("{key}\n").as_bytes())?;
            cmd.arg(file).arg("-U");
        }
        None => {
            cmd.arg(expand_home(&config.key));
        }
    }
    // Data on stdin, the signature on stdout.
    let out = run(&mut cmd, payload, &config.program)?;
    if !out.status.success() {
        return Err(format!(
            "`{} -Y sign` with user.signingKey {} failed: {}",
            config.program,
            config.key,
            said(&out.stderr)
        ));
    }
    let armored = String::from_utf8_lossy(&out.stdout).into_owned();
    match Format::of_signature(&armored) {
        Some(Format::Ssh) => Ok(armored),
        _ => Err(format!(
            "`{} -Y sign` printed no SSH signature: {}",
            config.program,
            said(&out.stderr)
        )),
    }
}

fn sign_openpgp(config: &Config, payload: &[u8]) -> Result<String, String> {
    let out = run(
        Command::new(&config.program).args(["--status-fd=2", "-bsau", &config.key]),
        payload,
        &config.program,
    )?;
    let status = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() || !status.contains("[GNUPG:] SIG_CREATED ") {
        return Err(format!(
            "`{} -bsau {}` failed: {}",
            config.program,
            config.key,
            said(&out.stderr)
        ));
    }
    let armored = String::from_utf8_lossy(&out.stdout).into_owned();
    match Format::of_signature(&armored) {
        Some(Format::OpenPgp) => Ok(armored),
        _ => Err(format!(
            "`{}` printed no armored signature (is `armor` off?)",
            config.program
        )),
    }
}

/// The signers file that lists `config`'s key, for `gate init`: its
/// repository-relative path and its bytes — an allowed-signers line
/// (`email key`) for SSH, the armored public key (`gpg --armor --export`)
/// for OpenPGP.
pub fn signers_file(config: &Config, email: &str) -> Result<(&'static str, Vec<u8>), String> {
    match config.format {
        Format::Ssh => {
            let public = match literal_ssh_key(&config.key) {
                Some(key) => key.to_string(),
                None => {
                    let path = expand_home(&config.key);
                    let public = match path.extension().is_some_and(|e| e == "pub") {
                        true => path,
                        false => PathBuf::from(format!("{}.pub", path.display())),
                    };
                    std::fs::read_to_string(&public)
                        .map_err(|e| format!("reading {}: {e}", public.display()))?
                }
            };
            let key: Vec<&str> = public.split_whitespace().take(2).collect();
            if key.len() != 2 || !key[0].starts_with("ssh-") && !key[0].starts_with("ecdsa-") {
                return Err(format!("{} holds no SSH public key", config.key));
            }
            let who = match email.trim() {
                "" => "*",
                email => email,
            };
            Ok((
                ".gate/allowed_signers",
                format!("{who} {} {}\n", key[0], key[1]).into_bytes(),
            ))
        }
        Format::OpenPgp => {
            let out = run(
                Command::new(&config.program).args(["--armor", "--export", &config.key]),
                &[],
                &config.program,
            )?;
            let text = String::from_utf8_lossy(&out.stdout);
            if !out.status.success() || !text.contains("-----BEGIN PGP PUBLIC KEY BLOCK-----") {
                return Err(format!(
                    "`{} --armor --export {}` gave no public key: {}",
                    config.program,
                    config.key,
                    said(&out.stderr)
                ));
            }
            Ok((".gate/signers.asc", out.stdout))
        }
    }
}

/// Who may sign, as a trusted revision holds it: the bytes of the file
/// `receipts.signers` names there.
#[derive(Debug, Clone)]
pub struct Signers {
    /// Where they were read, for messages: `.gate/allowed_signers at the
    /// range's base (1a2b3c4d5e6f)`.
    pub named: String,
    pub bytes: Vec<u8>,
}

impl Signers {
    fn format(&self) -> Format {
        let text = String::from_utf8_lossy(&self.bytes);
        match text.contains("-----BEGIN PGP PUBLIC KEY BLOCK-----") {
            true => Format::OpenPgp,
            false => Format::Ssh,
        }
    }
}

/// The programs verification runs (the CI machine's configuration, never
/// the change's).
#[derive(Debug, Clone)]
pub struct Verifier {
    pub ssh_program: String,
    pub gpg_program: String,
}

impl Verifier {
    pub fn from_config(get: impl Fn(&str) -> Option<String>) -> Verifier {
        Verifier {
            ssh_program: get("gpg.ssh.program").unwrap_or_else(|| "ssh-keygen".into()),
            gpg_program: get("gpg.openpgp.program")
                .or_else(|| get("gpg.program"))
                .unwrap_or_else(|| "gpg".into()),
        }
    }

    /// Who signed `payload` with `signature`, by `signers`: the signer as
    /// the signers file names them, with the key (`ada@example.org
    /// (ED25519 SHA256:…)`), or why the signature does not count. `at` is
    /// when the receipt says it ran (`2026-11-30T10:15:00Z`): a key's
    /// `valid-after`/`valid-before` are judged at that time.
    pub fn verify(
        &self,
        signature: &str,
        payload: &[u8],
        signers: &Signers,
        at: &str,
    ) -> Result<String, String> {
        let format = Format::of_signature(signature).ok_or_else(|| {
            "the signature is neither an SSH nor an OpenPGP signature".to_string()
        })?;
        if format != signers.format() {
            return Err(format!(
                "it is an {} signature, and {} lists {} keys only",
                format.as_str(),
                signers.named,
                signers.format().as_str()
            ));
        }
        match format {
            Format::Ssh => self.verify_ssh(signature, payload, signers, at),
            Format::OpenPgp => self.verify_openpgp(signature, payload, signers),
        }
    }

    fn verify_ssh(
        &self,
        signature: &str,
        payload: &[u8],
        signers: &Signers,
        at: &str,
    ) -> Result<String, String> {
        let scratch = Scratch::new()?;
        let allowed = scratch.write("allowed_signers", &signers.bytes)?;
        let sig = scratch.write("receipt.sig", signature.as_bytes())?;
        let time = verify_time(at);
        let mut find = Command::new(&self.ssh_program);
        find.args(["-Y", "find-principals", "-f"])
            .arg(&allowed)
            .arg("-s")
            .arg(&sig);
        if let Some(time) = &time {
            find.arg(format!("-Overify-time={time}"));
        }
        let found = run(&mut find, &[], &self.ssh_program)?;
        let principals: Vec<String> = String::from_utf8_lossy(&found.stdout)
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect();
        if !found.status.success() || principals.is_empty() {
            return Err(format!(
                "signed by a key {} does not list{}",
                signers.named,
                match said(&found.stderr) {
                    s if s.is_empty() => String::new(),
                    s => format!(" ({s})"),
                }
            ));
        }
        let mut last = String::new();
        for principal in &principals {
            let mut verify = Command::new(&self.ssh_program);
            verify
                .args(["-Y", "verify", "-n", NAMESPACE, "-f"])
                .arg(&allowed)
                .args(["-I", principal, "-s"])
                .arg(&sig);
            if let Some(time) = &time {
                verify.arg(format!("-Overify-time={time}"));
            }
            let out = run(&mut verify, payload, &self.ssh_program)?;
            let text = String::from_utf8_lossy(&out.stdout);
            if out.status.success()
                && let Some(line) = text.lines().find(|l| l.starts_with("Good \""))
            {
                // `Good "gate-receipt" signature for P with ED25519 key SHA256:…`
                let key = line
                    .split_once(" with ")
                    .map(|(_, k)| k.trim_end_matches('.').replace(" key ", " "))
                    .unwrap_or_default();
                return Ok(match key.is_empty() {
                    true => principal.clone(),
                    false => format!("{principal} ({key})"),
                });
            }
            last = said(&[out.stdout.as_slice(), out.stderr.as_slice()].concat());
        }
        Err(format!(
            "the signature does not verify for {} in {}: {last}",
            principals.join(", "),
            signers.named
        ))
    }

    fn verify_openpgp(
        &self,
        signature: &str,
        payload: &[u8],
        signers: &Signers,
    ) -> Result<String, String> {
        let scratch = Scratch::new()?;
        let home = scratch.dir.join("gnupg");
        std::fs::create_dir(&home).map_err(|e| format!("creating a keyring: {e}"))?;
        let _ = crate::platform::keep_private(&home);
        let keys = scratch.write("signers.asc", &signers.bytes)?;
        let gpg = |args: &[&std::ffi::OsStr], input: &[u8]| {
            let mut cmd = Command::new(&self.gpg_program);
            cmd.arg("--homedir")
                .arg(&home)
                .args([
                    "--batch",
                    "--no-tty",
                    "--no-auto-key-retrieve",
                    "--status-fd=1",
                ])
                .args(args);
            run(&mut cmd, input, &self.gpg_program)
        };
        let imported = gpg(&["--import".as_ref(), keys.as_os_str()], &[])?;
        if !imported.status.success() {
            return Err(format!(
                "{} could not be read as OpenPGP public keys: {}",
                signers.named,
                said(&imported.stderr)
            ));
        }
        let sig = scratch.write("receipt.asc", signature.as_bytes())?;
        let out = gpg(
            &["--verify".as_ref(), sig.as_os_str(), "-".as_ref()],
            payload,
        )?;
        let status = String::from_utf8_lossy(&out.stdout);
        let line = |tag: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(&format!("[GNUPG:] {tag} ")))
                .map(str::to_string)
        };
        for bad in ["EXPKEYSIG", "REVKEYSIG", "BADSIG", "ERRSIG"] {
            if let Some(rest) = line(bad) {
                return Err(match bad {
                    "ERRSIG" => format!("signed by a key {} does not list ({rest})", signers.named),
                    "EXPKEYSIG" => format!("signed by an expired key ({rest})"),
                    "REVKEYSIG" => format!("signed by a revoked key ({rest})"),
                    _ => format!("the signature does not match the receipt ({rest})"),
                });
            }
        }
        match (out.status.success(), line("GOODSIG"), line("VALIDSIG")) {
            (true, Some(good), Some(valid)) => {
                let uid = good.split_once(' ').map(|(_, u)| u).unwrap_or(&good);
                let primary = valid.split(' ').next_back().unwrap_or_default();
                Ok(format!("{uid} (OpenPGP {primary})"))
            }
            _ => Err(format!(
                "the signature does not verify with the keys in {}: {}",
                signers.named,
                said(&out.stderr)
            )),
        }
    }
}

/// `YYYYMMDDHHMMSSZ` for `ssh-keygen -Overify-time`, from an RFC 3339 UTC
/// time (`2026-11-30T10:15:00Z`); `None` when it is not one.
fn verify_time(at: &str) -> Option<String> {
    let digits: String = at
        .strip_suffix('Z')?
        .split('.')
        .next()?
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    (digits.len() == 14).then(|| format!("{digits}Z"))
}

/// `~/…` as git expands it in a key path.
fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => Path::new(&home).join(rest),
        _ => PathBuf::from(path),
    }
}

/// A program's output, its first lines, for a message.
fn said(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("[GNUPG:]"))
        .take(3)
        .collect();
    // Shown in reports: a control character from a program never reaches a
    // terminal raw.
    lines
        .join("; ")
        .chars()
        .flat_map(|c| match c.is_control() {
            true => c.escape_default().collect::<Vec<_>>(),
            false => vec![c],
        })
        .collect()
}

/// Run `cmd` with `input` on its stdin; its stdout and stderr, each read up
/// to [`MAX_OUTPUT`] bytes.
fn run(cmd: &mut Command, input: &[u8], program: &str) -> Result<std::process::Output, String> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run `{program}`: {e}"))?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let input = input.to_vec();
    // Written from a thread: a program that answers before it has read
    // everything must not block on a full pipe.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    // Each stream is kept up to the cap and the rest is read and dropped,
    // so a program that prints more never blocks on a full pipe.
    let bounded = |mut from: Box<dyn Read + Send>| {
        let mut buf = Vec::new();
        let _ = (&mut from).take(MAX_OUTPUT).read_to_end(&mut buf);
        let _ = std::io::copy(&mut from, &mut std::io::sink());
        buf
    };
    let stderr: Box<dyn Read + Send> = Box::new(child.stderr.take().expect("stderr is piped"));
    let reader = std::thread::spawn(move || bounded(stderr));
    let stdout = bounded(Box::new(child.stdout.take().expect("stdout is piped")));
    let status = child
        .wait()
        .map_err(|e| format!("waiting for `{program}`: {e}"))?;
    let _ = writer.join();
    let stderr = reader.join().unwrap_or_default();
    Ok(std::process::Output {
        status,
        stdout,
        stderr,
    })
}

/// A private directory for the files the programs read, removed when
/// dropped.
struct Scratch {
    dir: PathBuf,
    _guard: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Result<Scratch, String> {
        let guard = tempfile::Builder::new()
            .prefix("gate-signing-")
            .tempdir()
            .map_err(|e| format!("cannot make a temporary directory: {e}"))?;
        Ok(Scratch {
            dir: guard.path().to_path_buf(),
            _guard: guard,
        })
    }

    fn write(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, String> {
        let path = self.dir.join(name);
        std::fs::write(&path, bytes).map_err(|e| format!("writing {}: {e}", path.display()))?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload() -> Payload<'static> {
        Payload {
            schema: PAYLOAD_SCHEMA,
            check: "unit",
            evidence: "ev-1",
            contract: "c",
            fingerprint: "f",
            exit_code: Some(0),
            signal: None,
            passed: true,
            started_at: "2026-11-30T10:15:00Z",
            ended_at: "2026-11-30T10:15:12Z",
            started_ns: "1796033700123456789".into(),
            task: Some("T-1"),
        }
    }

    #[test]
    fn the_payload_is_compact_json_in_a_fixed_order() {
        assert_eq!(
            String::from_utf8(payload().bytes()).unwrap(),
            r#"{"schema":"gate.receipt-signature/1","check":"unit","evidence":"ev-1","contract":"c","fingerprint":"f","exit_code":0,"signal":null,"passed":true,"started_at":"2026-11-30T10:15:00Z","ended_at":"2026-11-30T10:15:12Z","started_ns":"1796033700123456789","task":"T-1"}"#
        );
    }

    #[test]
    fn a_value_with_a_newline_cannot_forge_another_field() {
        let mut forged = payload();
        forged.check = "unit\",\"passed\":true";
        assert_ne!(forged.bytes(), payload().bytes());
        assert!(
            String::from_utf8(forged.bytes())
                .unwrap()
                .contains(r#""check":"unit\",\"passed\":true""#)
        );
    }

    #[test]
    fn config_reads_git_s_keys() {
        let get = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(key, _)| *key == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(config(get(&[])).unwrap(), None);
        assert_eq!(
            config(get(&[
                ("gpg.format", "ssh"),
                ("user.signingkey", "~/.ssh/id.pub")
            ]))
            .unwrap(),
            Some(Config {
                format: Format::Ssh,
                key: "~/.ssh/id.pub".into(),
                program: "ssh-keygen".into()
            })
        );
        assert_eq!(
            config(get(&[("user.signingkey", "ABCD"), ("gpg.program", "gpg2")])).unwrap(),
            Some(Config {
                format: Format::OpenPgp,
                key: "ABCD".into(),
                program: "gpg2".into()
            })
        );
        assert!(config(get(&[("gpg.format", "x509"), ("user.signingkey", "k")])).is_err());
    }

    #[test]
    fn literal_keys_and_paths() {
        assert_eq!(
            literal_ssh_key("key::ssh-ed25519 AAAA"),
            Some("ssh-ed25519 AAAA")
        );
        assert_eq!(
            literal_ssh_key("ssh-ed25519 AAAA x"),
            Some("ssh-ed25519 AAAA x")
        );
        assert_eq!(literal_ssh_key("/home/a/.ssh/id_ed25519"), None);
    }

    #[test]
    fn formats_by_armor() {
        assert_eq!(
            Format::of_signature("-----BEGIN SSH SIGNATURE-----\nAAA\n"),
            Some(Format::Ssh)
        );
        assert_eq!(
            Format::of_signature("\n-----BEGIN PGP SIGNATURE-----\r\n"),
            Some(Format::OpenPgp)
        );
        assert_eq!(Format::of_signature("passed"), None);
    }

    #[test]
    fn a_program_that_prints_past_the_cap_neither_blocks_nor_is_kept_whole() {
        let out = run(
            Command::new("sh").args([
                "-c",
                "head -c 300000 /dev/zero; head -c 300000 /dev/zero >&2",
            ]),
            &[],
            "sh",
        )
        .unwrap();
        assert!(out.status.success());
        assert_eq!(out.stdout.len() as u64, MAX_OUTPUT);
        assert_eq!(out.stderr.len() as u64, MAX_OUTPUT);
    }

    #[test]
    fn verify_time_from_rfc3339() {
        assert_eq!(
            verify_time("2026-11-30T10:15:00Z").as_deref(),
            Some("20261130101500Z")
        );
        assert_eq!(
            verify_time("2026-11-30T10:15:00.123Z").as_deref(),
            Some("20261130101500Z")
        );
        assert_eq!(verify_time("yesterday"), None);
    }
}
