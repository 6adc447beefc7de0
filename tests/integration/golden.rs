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
            "golden mismatch for {name} (GATE_BLESS=1 rewrites it)\n--- {}\n+++ actual\n{}",
            path.display(),
            line_diff(&expected, actual)
        );
    }
}

/// The lines that differ between `expected` and `actual`, as a unified
/// diff does (`-` expected only, `+` actual only), with up to three
/// unchanged lines around each change and `@@ line N` before each hunk.
/// A longest common subsequence of lines; past 4,000 lines a side, both
/// texts whole instead.
pub fn line_diff(expected: &str, actual: &str) -> String {
    const CONTEXT: usize = 3;
    let a: Vec<&str> = expected.split_inclusive('\n').collect();
    let b: Vec<&str> = actual.split_inclusive('\n').collect();
    if a.len() > 4_000 || b.len() > 4_000 {
        return format!("--- expected, whole\n{expected}\n--- actual, whole\n{actual}");
    }
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    // The edit script: (' ' | '-' | '+', expected line number, text).
    let mut script: Vec<(char, usize, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            script.push((' ', i + 1, a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            script.push(('-', i + 1, a[i]));
            i += 1;
        } else {
            script.push(('+', i + 1, b[j]));
            j += 1;
        }
    }
    let near_change = |at: usize| {
        let from = at.saturating_sub(CONTEXT);
        let to = (at + CONTEXT + 1).min(script.len());
        script[from..to].iter().any(|(op, _, _)| *op != ' ')
    };
    let mut out = String::new();
    let mut shown_last = false;
    for (at, (op, line, text)) in script.iter().enumerate() {
        if !near_change(at) {
            shown_last = false;
            continue;
        }
        if !shown_last {
            out.push_str(&format!("@@ line {line}\n"));
        }
        shown_last = true;
        out.push(*op);
        out.push_str(text);
        if !text.ends_with('\n') {
            out.push_str("\n\\ no newline at the end\n");
        }
    }
    out
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

#[test]
fn a_golden_mismatch_shows_the_lines_that_differ() {
    let expected = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n";
    let actual = "a\nb\nc\nd\nE\nf\ng\nh\ni\nj\nk\nl\nm";
    assert_eq!(
        line_diff(expected, actual),
        "@@ line 2\n b\n c\n d\n-e\n+E\n f\n g\n h\n\
         @@ line 10\n j\n k\n l\n+m\n\\ no newline at the end\n"
    );
    assert_eq!(line_diff(expected, expected), "");
}
