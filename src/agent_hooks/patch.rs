//! The paths an `apply_patch` call writes, read from its headers — the
//! patch format OpenAI's Codex models emit, which Codex CLI, Cursor
//! (`ApplyPatch`) and GitHub Copilot (`apply_patch`) pass to their hooks:
//!
//! ```text
//! *** Begin Patch
//! *** Add File: src/new.rs
//! +…
//! *** Update File: src/old.rs
//! *** Move to: src/renamed.rs
//! @@ …
//! *** Delete File: src/gone.rs
//! *** End Patch
//! ```
//!
//! Every path a header names is written: added, updated, deleted, and both
//! sides of a move. A patch gate cannot read — no `*** Begin Patch`, no
//! header, a header with no path — is an error: the hook refuses what it
//! cannot judge. Pure.

/// The headers that name a path, each with what the patch does to it.
const HEADERS: [&str; 4] = [
    "*** Add File: ",
    "*** Update File: ",
    "*** Delete File: ",
    "*** Move to: ",
];

/// The paths `patch` writes, in order of appearance, each once, as written
/// (relative to the call's working directory, or absolute).
pub fn paths(patch: &str) -> Result<Vec<String>, String> {
    let mut lines = patch.lines().map(|l| l.trim_end_matches('\r'));
    // A heredoc wrapper (`apply_patch <<'EOF'`) may come first.
    if !lines.by_ref().any(|l| l.trim() == "*** Begin Patch") {
        return Err("the patch has no `*** Begin Patch` line".into());
    }
    let mut out: Vec<String> = Vec::new();
    let mut ended = false;
    for line in lines {
        if line.trim() == "*** End Patch" {
            ended = true;
            break;
        }
        let Some(header) = HEADERS.iter().find(|h| line.starts_with(*h)) else {
            continue;
        };
        let path = line[header.len()..].trim();
        if path.is_empty() {
            return Err(format!("`{}` names no path", header.trim_end()));
        }
        if !out.iter().any(|p| p == path) {
            out.push(path.to_string());
        }
    }
    if !ended {
        return Err("the patch has no `*** End Patch` line".into());
    }
    if out.is_empty() {
        return Err("the patch names no file".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_header_names_a_path_written() {
        let patch = "*** Begin Patch\n*** Add File: src/new.rs\n+fn a() {}\n*** Update File: src/old.rs\n*** Move to: src/renamed.rs\n@@ fn b()\n-x\n+y\n*** Delete File: docs/gone.md\n*** Update File: src/old.rs\n*** End Patch\n";
        assert_eq!(
            paths(patch).unwrap(),
            ["src/new.rs", "src/old.rs", "src/renamed.rs", "docs/gone.md"]
        );
    }

    #[test]
    fn a_heredoc_wrapper_and_crlf_are_read_through() {
        let patch = "apply_patch <<'EOF'\r\n*** Begin Patch\r\n*** Add File: /abs/x.txt\r\n+x\r\n*** End Patch\r\nEOF\r\n";
        assert_eq!(paths(patch).unwrap(), ["/abs/x.txt"]);
    }

    #[test]
    fn what_cannot_be_read_is_an_error() {
        for patch in [
            "",
            "diff --git a/x b/x",
            "*** Begin Patch\n*** End Patch\n",
            "*** Begin Patch\n*** Add File: \n*** End Patch\n",
            "*** Begin Patch\n*** Add File: a\n",
        ] {
            assert!(paths(patch).is_err(), "{patch:?}");
        }
        // A hunk's lines start with `+`, `-` or a space: one that reads
        // like a header there is content.
        let tricky = "*** Begin Patch\n*** Update File: a\n+*** Add File: b\n*** End Patch\n";
        assert_eq!(paths(tricky).unwrap(), ["a"]);
    }
}
