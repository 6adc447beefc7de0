//! The fuzz target: a seeded mutator over the checked-in corpus
//! (`tests/fuzz/corpus/`: policies, plans, task files and gate's own state
//! files), with two properties:
//!
//! - in process, the parsers and validators (`policy::parse`,
//!   `plan::parse` and its lints, `task::parse`, `brief::validate`,
//!   `brief::compare`) never panic on any input;
//! - end to end, `gate` run on a repository holding a mutated file never
//!   panics, exits in 0..=3, and under `--json` prints exactly one JSON
//!   document.
//!
//! A short run is part of `cargo test`. A long one (README "Tests"):
//!
//! ```sh
//! GATE_FUZZ_RUNS=2000 cargo test --test integration fuzz:: -- --nocapture
//! ```
//!
//! `GATE_FUZZ_SEED` picks another seed; a failure names the seed, the run
//! and the input, so it can be replayed and added to the corpus.

use std::path::{Path, PathBuf};

use crate::fixture::{self, show};
use crate::support::{Rng, TestRepo};

/// The kinds of file the target mutates, by corpus directory.
const KINDS: &[&str] = &["policy", "plan", "task", "state"];

/// Fragments that parsers treat specially: YAML structure, aliases and
/// tags, task-file headings and fences, line endings, escapes, extremes.
const TOKENS: &[&str] = &[
    ": ",
    "\n- ",
    "\n  - ",
    "[",
    "]",
    "{",
    "}",
    "\"",
    "'",
    "&a ",
    "*a",
    "<<: *a\n",
    "!!binary ",
    "!!str ",
    "? ",
    "---\n",
    "...\n",
    "%YAML 1.2\n",
    "null",
    "~",
    "-1",
    "99999999999999999999999",
    "1e999",
    "2026-02-30",
    "\n## Brief (verbatim)\n",
    "\n## Addenda\n",
    "\n## Implementation notes\n",
    "\n### 2026-01-01T00:00:00Z · amendment · Ada\n",
    "\n```text\n",
    "\n```\n",
    "````",
    "\r\n",
    "\r",
    "\u{0}",
    "\u{feff}",
    "\u{1b}[2J",
    "\u{202e}",
    "é",
    "\t",
    "../",
    "/etc/passwd",
    ".git/",
    "**",
    "{a,b}",
    "T-42",
    "export-tests",
    "I-export",
    "\"42\"",
];

/// Runs of the end-to-end target (`GATE_FUZZ_RUNS`, default 12); the
/// in-process target does fifty times as many.
fn runs() -> usize {
    std::env::var("GATE_FUZZ_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12)
}

fn seed() -> u64 {
    std::env::var("GATE_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x6a7e_f022)
}

/// Every corpus file, by kind.
fn corpus() -> Vec<(&'static str, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz/corpus");
    let mut files = Vec::new();
    for kind in KINDS {
        let mut names: Vec<PathBuf> = std::fs::read_dir(root.join(kind))
            .unwrap_or_else(|e| panic!("the corpus of {kind}: {e}"))
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        for name in names {
            files.push((*kind, std::fs::read(&name).unwrap()));
        }
    }
    assert!(KINDS.iter().all(|k| files.iter().any(|(f, _)| f == k)));
    files
}

/// One to four mutations of `input`: flip a bit, delete, duplicate or
/// truncate a range, insert a token, swap two lines, or splice in a piece
/// of another corpus file.
fn mutate(rng: &mut Rng, input: &[u8], corpus: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut data = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = |rng: &mut Rng, data: &[u8]| rng.below(data.len() + 1);
        match rng.below(7) {
            0 if !data.is_empty() => {
                let i = rng.below(data.len());
                data[i] ^= 1 << rng.below(8);
            }
            1 if !data.is_empty() => {
                let start = rng.below(data.len());
                let end = (start + 1 + rng.below(64)).min(data.len());
                data.drain(start..end);
            }
            2 if !data.is_empty() => {
                let start = rng.below(data.len());
                let end = (start + 1 + rng.below(256)).min(data.len());
                let piece = data[start..end].to_vec();
                let to = at(rng, &data);
                data.splice(to..to, piece);
            }
            3 => data.truncate(at(rng, &data)),
            4 => {
                let token = rng.pick(TOKENS).as_bytes().to_vec();
                let to = at(rng, &data);
                data.splice(to..to, token);
            }
            5 => {
                let mut lines: Vec<&[u8]> = data.split_inclusive(|b| *b == b'\n').collect();
                if lines.len() > 1 {
                    let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
                    lines.swap(a, b);
                }
                data = lines.concat();
            }
            _ => {
                let (_, other) = rng.pick(corpus);
                if !other.is_empty() {
                    let start = rng.below(other.len());
                    let end = (start + 1 + rng.below(512)).min(other.len());
                    let to = at(rng, &data);
                    data.splice(to..to, other[start..end].iter().copied());
                }
            }
        }
    }
    data
}

/// The input for an assertion message: text when it is, else escaped.
fn describe(data: &[u8]) -> String {
    format!("{:?}", String::from_utf8_lossy(data))
}

#[test]
fn parsers_never_panic_on_mutated_files() {
    let corpus = corpus();
    let (runs, seed) = (runs() * 50, seed());
    let mut rng = Rng::new(seed);
    let file = Path::new("fuzzed");
    for run in 0..runs {
        let (kind, input) = rng.pick(&corpus);
        let data = mutate(&mut rng, input, &corpus);
        let text = String::from_utf8_lossy(&data).into_owned();
        let original = String::from_utf8_lossy(input).into_owned();
        let outcome = std::panic::catch_unwind(|| match *kind {
            "policy" => {
                let _ = gate::policy::parse(file, &text);
            }
            "plan" => {
                if let Ok(plan) = gate::plan::parse(file, &text) {
                    let _ = plan.reference_faults();
                    let _ = plan.command_lints(&["fork".to_string()]);
                }
            }
            _ => {
                if let Ok(task) = gate::task::parse(file, text.clone()) {
                    let _ = gate::brief::validate(&task);
                }
                let _ = gate::brief::compare(file, &original, &text);
                let _ = gate::brief::compare(file, &text, &original);
            }
        });
        assert!(
            outcome.is_ok(),
            "seed {seed}, run {run}: a {kind} input panicked: {}",
            describe(&data)
        );
    }
}

/// The repository the end-to-end target mutates: every check required,
/// task T-42 started and committed, a receipt recorded, an edit staged.
fn fuzz_repo(corpus: &[(&str, Vec<u8>)]) -> TestRepo {
    let named = |kind: &str, n: usize| {
        corpus
            .iter()
            .filter(|(k, _)| *k == kind)
            .nth(n)
            .unwrap()
            .1
            .clone()
    };
    let repo = fixture::plan_repo("required");
    repo.write(".gate/policy.yaml", named("policy", 1));
    repo.write(".gate/plan.yaml", named("plan", 1));
    repo.commit_all("policy and plan");
    fixture::start_42(&repo);
    repo.commit_all("start");
    let out = repo
        .gate()
        .args(["verify", "export-tests"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    repo.write("src/export/csv.rs", "// csv\n");
    repo.git(&["add", "-A"]);
    repo
}

/// Every regular file under `dir`, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(path),
                Ok(t) if t.is_file() && !path.to_string_lossy().ends_with(".lock") => {
                    out.push(path)
                }
                _ => {}
            }
        }
    }
    out.sort();
    out
}

/// The verbs each mutated repository is run through.
const VERBS: &[&[&str]] = &[
    &["check", "--json"],
    &["hook", "pre-commit"],
    &["status", "--json"],
    &["task", "validate", "--all", "--json"],
    &["plan", "validate", "--json"],
];

#[test]
fn gate_never_panics_and_exits_in_0_to_3_on_mutated_files() {
    let corpus = corpus();
    let repo = fuzz_repo(&corpus);
    let state_dir = fixture::git_path(&repo, "gate");
    let (runs, seed) = (runs(), seed());
    let mut rng = Rng::new(seed ^ 0x5eed);
    for run in 0..runs {
        let kind = *rng.pick(KINDS);
        let target = match kind {
            "policy" => repo.abs(b".gate/policy.yaml"),
            "plan" => repo.abs(b".gate/plan.yaml"),
            "task" => repo.abs(b".gate/tasks/T-42.md"),
            _ => rng.pick(&files_under(&state_dir)).clone(),
        };
        let before = std::fs::read(&target).unwrap_or_default();
        // Mutate the file there now, or a corpus file of its kind.
        let seeds: Vec<&Vec<u8>> = corpus
            .iter()
            .filter(|(k, _)| *k == kind)
            .map(|(_, d)| d)
            .collect();
        let input = if rng.chance(50) {
            &before
        } else {
            *rng.pick(&seeds)
        };
        let data = mutate(&mut rng, input, &corpus);
        std::fs::write(&target, &data).unwrap();
        for verb in VERBS {
            let what = format!(
                "seed {seed}, run {run}: gate {} with {} holding {}",
                verb.join(" "),
                target.display(),
                describe(&data)
            );
            // A hang is a finding too: the run is killed after a generous
            // deadline rather than stalling the suite.
            let out = repo
                .gate()
                .args(*verb)
                .timeout(std::time::Duration::from_secs(120))
                .output()
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!stderr.contains("panicked"), "{what}\n{}", show(&out));
            assert!(
                matches!(out.status.code(), Some(0..=3)),
                "{what}\n{}",
                show(&out)
            );
            if verb.contains(&"--json") {
                let doc: Result<serde_json::Value, _> = serde_json::from_slice(&out.stdout);
                assert!(
                    doc.is_ok(),
                    "{what}: stdout is not one JSON document\n{}",
                    show(&out)
                );
            }
        }
        std::fs::write(&target, &before).unwrap();
    }
}
