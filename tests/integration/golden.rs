//! Golden transcripts: whole outputs compared against files under
//! `tests/golden/`, with machine-specific parts redacted. Run with
//! `GATE_BLESS=1` to write the files after a deliberate change.

use std::path::{Path, PathBuf};

use crate::support::TestRepo;

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Replace what differs between machines and runs: the repository's temp
/// path, the gate binary's path, timestamps.
pub fn redact(repo: Option<&TestRepo>, text: &str) -> String {
    let mut s = text.to_string();
    if let Some(repo) = repo {
        let root = repo
            .path()
            .canonicalize()
            .unwrap_or_else(|_| repo.path().to_path_buf());
        s = s.replace(&root.display().to_string(), "[REPO]");
        s = s.replace(&repo.path().display().to_string(), "[REPO]");
    }
    let bin = assert_cmd::cargo::cargo_bin!("gate");
    s = s.replace(&bin.display().to_string(), "[GATE]");
    redact_head_ids(&redact_evidence(&redact_timestamps(&s)))
}

/// `HEAD (1a2b3c4d5e6f)` (where a report's policy came from) →
/// `HEAD ([ID])`: HEAD often holds a task file with its creation time.
fn redact_head_ids(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find("HEAD (") {
        let (before, after) = rest.split_at(at + "HEAD (".len());
        out.push_str(before);
        let id = after.as_bytes();
        if id.len() > 12
            && id[..12]
                .iter()
                .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
            && id[12] == b')'
        {
            out.push_str("[ID]");
            rest = &after[12..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// `ev-20261130T010203Z-3f9a0c1b2d4e` (an evidence id: a run's start and a
/// nonce) → `ev-[EVIDENCE]`.
fn redact_evidence(s: &str) -> String {
    let shape = b"ev-ddddddddTddddddZ-hhhhhhhhhhhh";
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if i + shape.len() <= b.len()
            && shape
                .iter()
                .zip(&b[i..i + shape.len()])
                .all(|(p, c)| match p {
                    b'd' => c.is_ascii_digit(),
                    b'h' => c.is_ascii_digit() || (b'a'..=b'f').contains(c),
                    _ => p == c,
                })
        {
            out.push_str("ev-[EVIDENCE]");
            i += shape.len();
        } else {
            let ch = s[i..].chars().next().expect("in bounds");
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// `2026-11-30T12:34:56Z` → `[TIME]`.
fn redact_timestamps(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    let shape = b"dddd-dd-ddTdd:dd:ddZ";
    while i < b.len() {
        if i + shape.len() <= b.len()
            && shape.iter().zip(&b[i..i + shape.len()]).all(|(p, c)| {
                if *p == b'd' {
                    c.is_ascii_digit()
                } else {
                    p == c
                }
            })
        {
            out.push_str("[TIME]");
            i += shape.len();
        } else {
            let ch = s[i..].chars().next().expect("in bounds");
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// `<base>-k3f9a` (a default task id: its base and 5 fresh characters,
/// decision 0024) → `<base>-[FRESH]`, wherever the fresh part ends a word.
pub fn redact_fresh_ids(s: &str, base: &str) -> String {
    const FRESH: &[u8] = b"0123456789abcdefghjkmnpqrstvwxyz";
    let prefix = format!("{base}-");
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find(&prefix) {
        let (before, after) = rest.split_at(at + prefix.len());
        out.push_str(before);
        let b = after.as_bytes();
        let word_ends = b.get(5).is_none_or(|c| !c.is_ascii_alphanumeric());
        if b.len() >= 5 && b[..5].iter().all(|c| FRESH.contains(c)) && word_ends {
            out.push_str("[FRESH]");
            rest = &after[5..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Compare `actual` with `tests/golden/<name>`, or write it under `GATE_BLESS=1`.
pub fn assert_golden(name: &str, actual: &str) {
    let path = golden_dir().join(name);
    if std::env::var_os("GATE_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().expect("golden files live in a directory")).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "missing golden file {} (run with GATE_BLESS=1 to create it)",
            path.display()
        )
    });
    if expected != actual {
        panic!(
            "golden mismatch for {name} (GATE_BLESS=1 rewrites it)\n--- expected\n{expected}\n--- actual\n{actual}\n---"
        );
    }
}

/// A transcript: exit code, stdout, stderr.
pub fn transcript(repo: Option<&TestRepo>, out: &std::process::Output) -> String {
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        out.status
            .code()
            .map_or("signal".to_string(), |c| c.to_string()),
        redact(repo, &String::from_utf8_lossy(&out.stdout)),
        redact(repo, &String::from_utf8_lossy(&out.stderr)),
    )
}
