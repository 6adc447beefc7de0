//! The SARIF 2.1.0 rendering of a `gate.report/1`
//! (docs/ci.md#report-formats), for code-scanning tools: one run, one
//! result per finding, the causes present as the driver's rules. Built
//! from the JSON document's wire values and, like it, keeps every finding.
//!
//! A result's `ruleId` is the finding's cause; its `level` follows the
//! severity as the GitHub annotations do (`error` for a finding of a check
//! that blocks, `warning` when reported only or a warning, `note` for
//! information); its location is the path it is about (as a relative URI,
//! from the path's exact bytes), the unreadable file and line, or, for a
//! finding about no path, the task's file (else `.gate/plan.yaml`): code
//! scanning refuses a result without one. Its `partialFingerprints` hold
//! gate's own (`gateFinding/v1`), so two findings on one path stay two.
//! The commit, task, check, change, what decides it and whether it could
//! not decide are in its `properties`. Each rule carries docs/causes.md's
//! row for its cause (`fullDescription`, `help`) and the page's address
//! (`helpUri`).

use serde_json::{Value, json};

use super::wire::report::{CheckWire, FindingWire, ReportWire};

/// SARIF's version, and the schema a log names.
const VERSION: &str = "2.1.0";
const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The SARIF log of `doc`, pretty, with a final newline.
pub fn render(doc: &ReportWire) -> String {
    let mut rules: Vec<(&str, &str)> = Vec::new();
    let mut results = Vec::new();
    for c in &doc.checks {
        for f in c.findings.iter() {
            let index = match rules.iter().position(|(cause, _)| *cause == f.cause) {
                Some(i) => i,
                None => {
                    rules.push((f.cause, f.check));
                    rules.len() - 1
                }
            };
            results.push(result(doc, c, &f, index));
        }
    }
    let rules: Vec<Value> = rules
        .iter()
        .map(|(cause, check)| {
            let mut rule = json!({
                "id": cause,
                // SARIF asks a name other than the id (the id is an opaque
                // key; the name is read): the multitool warns (SARIF1001)
                // when they are the same.
                "name": rule_name(cause),
                "shortDescription": {"text": format!("{cause}: a finding of gate's {check} check")},
                "helpUri": super::causes::page_uri(),
                "properties": {"check": check},
            });
            // What the cause means and what decides it, as docs/causes.md
            // says (every cause gate produces has its row there).
            let doc =
                super::causes::describe(check, cause).unwrap_or_else(|| super::causes::CauseDoc {
                    meaning: format!("a finding of gate's {check} check"),
                    decide: "see docs/causes.md".to_string(),
                });
            rule["fullDescription"] = json!({
                "text": super::causes::plain(&doc.meaning),
                "markdown": super::causes::absolute_links(&doc.meaning),
            });
            // What decides it; where the page gives no remedy, the meaning.
            let help = match doc.decide.as_str() {
                "" | "—" => &doc.meaning,
                decide => decide,
            };
            rule["help"] = json!({
                "text": super::causes::plain(help),
                "markdown": super::causes::absolute_links(help),
            });
            rule
        })
        .collect();
    let log = json!({
        "$schema": SCHEMA,
        "version": VERSION,
        "runs": [{
            "tool": {"driver": {
                "name": "gate",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "invocations": [{
                "executionSuccessful": true,
                "exitCode": doc.exit_code,
            }],
            "results": results,
            "properties": {
                "gate": {
                    "schema": doc.schema,
                    "verb": doc.verb,
                    "outcome": doc.outcome,
                    "exit_code": doc.exit_code,
                    "blocks": doc.blocks,
                    "policy": {"file": doc.policy.file, "revision": doc.policy.revision},
                    "task": doc.task.as_ref().map(|t| t.id),
                    "notes": doc.notes,
                },
            },
        }],
    });
    let mut s = serde_json::to_string_pretty(&log).expect("a SARIF log always serialises");
    s.push('\n');
    s
}

fn result(doc: &ReportWire, c: &CheckWire, f: &FindingWire, rule_index: usize) -> Value {
    let level = match f.severity {
        "blocker" if c.blocks => "error",
        "blocker" | "warn" => "warning",
        _ => "note",
    };
    let mut text = f.message.to_string();
    if !f.decide.is_empty() {
        text.push_str("\ndecide: ");
        text.push_str(f.decide);
    }
    let mut result = json!({
        "ruleId": f.cause,
        "ruleIndex": rule_index,
        "level": level,
        "message": {"text": text},
        "properties": {
            "check": f.check,
            "severity": f.severity,
            "unknown": f.unknown,
            "decide": f.decide,
            "commit": f.commit,
            "task": f.task,
            "change": f.change,
            "check_id": f.check_id,
            "ref": f.ref_name,
        },
    });
    if let Some(props) = result["properties"].as_object_mut() {
        props.retain(|_, v| !v.is_null());
    }
    let location = match (&f.path, &f.path_hex, f.file) {
        (_, Some(hex), _) => Some(json!({"artifactLocation": {"uri": uri(&unhex(hex))}})),
        (Some(path), None, _) => Some(json!({"artifactLocation": {"uri": uri(path.as_bytes())}})),
        (None, None, Some(file)) => Some(match f.line {
            Some(line) => json!({
                "artifactLocation": {"uri": uri(file.as_bytes())},
                "region": {"startLine": line},
            }),
            None => json!({"artifactLocation": {"uri": uri(file.as_bytes())}}),
        }),
        // About no path: on the file that says what the work may do, the
        // task's when one is named, else the plan (code scanning places
        // every result on a file).
        (None, None, None) => {
            // A task id from a trailer may be anything: only a valid one
            // names a file.
            let task = f
                .task
                .or(doc.task.as_ref().map(|t| t.id))
                .filter(|id| crate::ids::task_id(id).is_ok());
            let file = match task {
                Some(task) => crate::task::task_file(task).to_string_lossy().into_owned(),
                None => ".gate/plan.yaml".to_string(),
            };
            Some(json!({"artifactLocation": {"uri": uri(file.as_bytes())}}))
        }
    };
    if let Some(location) = location {
        result["locations"] = json!([{"physicalLocation": location}]);
    }
    result["partialFingerprints"] = json!({FINGERPRINT: fingerprint(f)});
    result
}

/// The key of gate's own fingerprint in `partialFingerprints`.
const FINGERPRINT: &str = "gateFinding/v1";

/// What tells one finding from another across runs, so code scanning keeps
/// two findings on one path apart and one finding in two runs together:
/// the SHA-256 of its check, cause and every subject field (the exact
/// bytes of its path), not of its message, whose wording may change.
fn fingerprint(f: &FindingWire) -> String {
    use sha2::{Digest, Sha256};
    let path = match (&f.path_hex, &f.path) {
        (Some(hex), _) => unhex(hex),
        (None, Some(path)) => path.as_bytes().to_vec(),
        (None, None) => Vec::new(),
    };
    let line = f.line.map(|l| l.to_string());
    let mut hash = Sha256::new();
    for part in [
        Some(f.check.as_bytes()),
        Some(f.cause.as_bytes()),
        f.commit.map(str::as_bytes),
        Some(path.as_slice()),
        f.change.map(str::as_bytes),
        f.task.map(str::as_bytes),
        f.check_id.map(str::as_bytes),
        f.ref_name.map(str::as_bytes),
        f.file.map(str::as_bytes),
        line.as_deref().map(str::as_bytes),
        f.key.map(str::as_bytes),
    ] {
        // A field's absence and its emptiness hash apart.
        match part {
            Some(bytes) => {
                hash.update([1]);
                hash.update((bytes.len() as u64).to_be_bytes());
                hash.update(bytes);
            }
            None => hash.update([0]),
        }
    }
    hash.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A repository path as a relative URI reference: every byte but the
/// unreserved characters and `/` percent-encoded (RFC 3986).
pub fn uri(path: &[u8]) -> String {
    let mut s = String::with_capacity(path.len());
    for &b in path {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

/// The bytes `path_hex` holds (docs/json.md).
pub fn unhex(hex: &str) -> Vec<u8> {
    (0..hex.len() / 2)
        .filter_map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
        .collect()
}

/// A cause as a rule name is conventionally written (SARIF 3.49.7's
/// examples, CodeQL's rules): each word capitalised, joined —
/// `path_outside_scope` is `PathOutsideScope`.
fn rule_name(cause: &str) -> String {
    cause
        .split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_rule_is_named_by_its_cause_in_words_run_together() {
        assert_eq!(rule_name("path_outside_scope"), "PathOutsideScope");
        assert_eq!(rule_name("merge_commit"), "MergeCommit");
        assert_eq!(rule_name("stale"), "Stale");
        assert_eq!(rule_name("a__b_"), "AB");
    }

    use super::*;

    #[test]
    fn paths_are_relative_uris_of_their_exact_bytes() {
        assert_eq!(uri(b"src/a b%c.rs"), "src/a%20b%25c.rs");
        assert_eq!(uri(b"data/bad\xffname.txt"), "data/bad%FFname.txt");
        assert_eq!(uri("é".as_bytes()), "%C3%A9");
        assert_eq!(unhex("ff41"), vec![0xff, b'A']);
    }
}
