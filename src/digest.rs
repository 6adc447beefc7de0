//! Hashing and the canonical encoding that digests are computed over.
//!
//! Owns [`sha256_hex`] (lowercase hex SHA-256) and [`canonical_json`], the one
//! byte encoding of structured data that gate hashes: check contract digests
//! today, plan pins later. The encoding is part of gate's public contract —
//! receipts and task files store digests of it — so it must not change
//! silently: objects with keys sorted by their UTF-8 bytes, no whitespace,
//! strings and numbers exactly as `serde_json` writes them.

use sha2::{Digest, Sha256};

/// SHA-256 of `bytes` as 64 lowercase hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    out
}

/// Whether `text` is lowercase hex digits only, as [`hex`] writes them
/// (and git its object ids).
pub fn is_lower_hex(text: &str) -> bool {
    text.bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// `value` as canonical JSON: object keys sorted (by UTF-8 bytes), no
/// whitespace, `serde_json`'s escaping of strings. Arrays keep their order:
/// callers sort lists whose order carries no meaning before encoding.
pub fn canonical_json(value: &serde_json::Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &serde_json::Value, out: &mut String) {
    use serde_json::Value;
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            // The display of a scalar Value is its compact JSON text.
            out.push_str(&value.to_string());
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            // Sorted here rather than trusting the map's order: serde_json's
            // `preserve_order` feature may be switched on by any dependency.
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(item, out);
            }
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sha256_of_known_inputs() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn hex_is_lowercase_and_padded() {
        assert_eq!(hex(&[0x00, 0x0f, 0xa0, 0xff]), "000fa0ff");
    }

    #[test]
    fn canonical_json_sorts_keys_and_drops_whitespace() {
        let value = json!({"b": [3, {"z": null, "a": true}], "a": "x\"y\n", "é": 1.5, "A": -2});
        assert_eq!(
            canonical_json(&value),
            r#"{"A":-2,"a":"x\"y\n","b":[3,{"a":true,"z":null}],"é":1.5}"#
        );
        assert_eq!(canonical_json(&json!([])), "[]");
        assert_eq!(canonical_json(&json!({})), "{}");
        assert_eq!(canonical_json(&json!("\u{1}")), r#""\u0001""#);
    }

    #[test]
    fn canonical_json_ignores_insertion_order() {
        let mut a = serde_json::Map::new();
        a.insert("x".into(), json!(1));
        a.insert("y".into(), json!(2));
        let mut b = serde_json::Map::new();
        b.insert("y".into(), json!(2));
        b.insert("x".into(), json!(1));
        assert_eq!(
            canonical_json(&serde_json::Value::Object(a)),
            canonical_json(&serde_json::Value::Object(b))
        );
    }
}
