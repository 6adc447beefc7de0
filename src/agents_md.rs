//! The block gate keeps in `AGENTS.md` (docs/agents.md): the loop an agent
//! follows under gate, between two marker lines, and how it is put into a
//! file — created, appended, or replaced between its markers, the rest of
//! the file kept byte for byte. Pure: `gate init --agents` reads and writes
//! the file.

/// The first line of the block `gate init --agents` keeps in AGENTS.md.
pub const AGENTS_BEGIN: &str = "<!-- gate:agents:begin -->";
/// The last line of that block.
pub const AGENTS_END: &str = "<!-- gate:agents:end -->";
/// Where the block goes: the file agents read at the repository root.
pub const AGENTS_PATH: &str = "AGENTS.md";

/// The loop an agent follows under gate (docs/agents.md), between the markers.
pub fn agents_block() -> String {
    format!(
        "{AGENTS_BEGIN}\n{}{AGENTS_END}\n",
        include_str!("../policy/agents.md")
    )
}

/// What putting the block into a file did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spliced {
    /// There was no file: it is the block alone.
    Created,
    /// The file had no block: it is appended, the rest kept byte for byte.
    Appended,
    /// The block was there and differed: replaced between its markers.
    Replaced,
    /// The block was there as it is: nothing to write.
    Current,
}

/// The byte ranges of the lines of `text` that are `marker` (a trailing
/// `\r` allowed), each with its line ending: a marker quoted inside a line
/// is prose, not a marker.
fn marker_lines(text: &[u8], marker: &str) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let end = text[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |i| start + i + 1);
        let line = text[start..end]
            .strip_suffix(b"\n")
            .unwrap_or(&text[start..end]);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line == marker.as_bytes() {
            found.push((start, end));
        }
        start = end;
    }
    found
}

/// `existing` (the file's bytes, `None` when absent) with the block in
/// place: the lines from the begin marker to the end marker replaced,
/// everything outside them kept byte for byte. Markers that do not pair (a
/// begin without an end, an end before a begin, two blocks) are an error:
/// which text is gate's cannot be told, so nothing is touched.
pub fn splice_agents(existing: Option<&[u8]>, block: &str) -> Result<(Vec<u8>, Spliced), String> {
    let Some(old) = existing else {
        return Ok((block.as_bytes().to_vec(), Spliced::Created));
    };
    let begins = marker_lines(old, AGENTS_BEGIN);
    let ends = marker_lines(old, AGENTS_END);
    match (begins.as_slice(), ends.as_slice()) {
        ([], []) => {
            let mut out = old.to_vec();
            if !out.is_empty() {
                if !out.ends_with(b"\n") {
                    out.push(b'\n');
                }
                out.push(b'\n');
            }
            out.extend_from_slice(block.as_bytes());
            Ok((out, Spliced::Appended))
        }
        ([(begin, _)], [(end_start, end)]) if begin < end_start => {
            let mut out = old[..*begin].to_vec();
            out.extend_from_slice(block.as_bytes());
            out.extend_from_slice(&old[*end..]);
            let how = if out == old {
                Spliced::Current
            } else {
                Spliced::Replaced
            };
            Ok((out, how))
        }
        _ => Err(format!(
            "its gate block's marker lines do not pair ({} `{AGENTS_BEGIN}`, {} `{AGENTS_END}`), so which text is gate's cannot be told",
            begins.len(),
            ends.len()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: &str = "<!-- gate:agents:begin -->\nloop\n<!-- gate:agents:end -->\n";

    #[test]
    fn no_file_is_the_block_alone() {
        assert_eq!(
            splice_agents(None, BLOCK).unwrap(),
            (BLOCK.as_bytes().to_vec(), Spliced::Created)
        );
    }

    #[test]
    fn a_file_without_the_block_gets_it_appended_and_keeps_the_rest() {
        let (out, how) = splice_agents(Some(b"# Ours\nrules"), BLOCK).unwrap();
        assert_eq!(how, Spliced::Appended);
        assert_eq!(out, format!("# Ours\nrules\n\n{BLOCK}").into_bytes());
        // Idempotent: the second run changes nothing.
        assert_eq!(
            splice_agents(Some(&out), BLOCK).unwrap(),
            (out.clone(), Spliced::Current)
        );
    }

    #[test]
    fn an_old_block_is_replaced_between_its_markers_only() {
        let old = b"top\r\n<!-- gate:agents:begin -->\r\nold loop\n<!-- gate:agents:end -->\nbottom \xff\n";
        let (out, how) = splice_agents(Some(old), BLOCK).unwrap();
        assert_eq!(how, Spliced::Replaced);
        let mut want = b"top\r\n".to_vec();
        want.extend_from_slice(BLOCK.as_bytes());
        want.extend_from_slice(b"bottom \xff\n");
        assert_eq!(out, want);
    }

    #[test]
    fn a_marker_quoted_inside_a_line_is_not_a_marker() {
        let prose = b"gate keeps its block after `<!-- gate:agents:begin -->`.\n";
        let (out, how) = splice_agents(Some(prose), BLOCK).unwrap();
        assert_eq!(how, Spliced::Appended);
        assert!(out.starts_with(prose));
    }

    #[test]
    fn markers_that_do_not_pair_touch_nothing() {
        for bad in [
            "<!-- gate:agents:begin -->\nno end\n",
            "no begin\n<!-- gate:agents:end -->\n",
            "<!-- gate:agents:end -->\n<!-- gate:agents:begin -->\n",
            "<!-- gate:agents:begin -->\n<!-- gate:agents:end -->\n<!-- gate:agents:begin -->\n<!-- gate:agents:end -->\n",
        ] {
            assert!(splice_agents(Some(bad.as_bytes()), BLOCK).is_err(), "{bad}");
        }
    }
}
