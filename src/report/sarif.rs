//! The SARIF 2.1.0 rendering of a `gate.report/1`
//! (docs/ci.md#report-formats), for code-scanning tools: one run, one
//! result per finding, the causes present as the driver's rules. Built
//! from the JSON document's wire values and, like it, keeps every finding.
//!
//! A result's `ruleId` is the finding's cause; its `level` follows the
//! severity as the GitHub annotations do (`error` for a finding of a check
//! that blocks, `warning` when reported only or a warning, `note` for
//! information); its location is the path it is about (as a relative URI,
//! from the path's exact bytes) or the unreadable file and line; the
//! commit, task, check, change, what decides it and whether it could not
//! decide are in its `properties`.

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
            results.push(result(c, &f, index));
        }
    }
    let rules: Vec<Value> = rules
        .iter()
        .map(|(cause, check)| {
            json!({
                "id": cause,
                "name": cause,
                "shortDescription": {"text": format!("{cause}: a finding of gate's {check} check (docs/causes.md)")},
                "properties": {"check": check},
            })
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

fn result(c: &CheckWire, f: &FindingWire, rule_index: usize) -> Value {
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
        (None, None, None) => None,
    };
    if let Some(location) = location {
        result["locations"] = json!([{"physicalLocation": location}]);
    }
    result
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_uris_of_their_exact_bytes() {
        assert_eq!(uri(b"src/a b%c.rs"), "src/a%20b%25c.rs");
        assert_eq!(uri(b"data/bad\xffname.txt"), "data/bad%FFname.txt");
        assert_eq!(uri("é".as_bytes()), "%C3%A9");
        assert_eq!(unhex("ff41"), vec![0xff, b'A']);
    }
}
