//! The task file on disk: YAML front matter, then a Markdown body with three
//! sections whose verbatim texts round-trip byte for byte.
//!
//! `````text
//! ---
//! schema: gate.task/1
//! …the 12 keys…
//! ---
//!
//! ## Brief (verbatim)
//!
//! ````text
//! the operator's words, exactly
//! ````
//!
//! ## Addenda
//!
//! ## Implementation notes
//! `````
//!
//! Verbatim text sits in a fenced block whose fence is one backtick longer
//! than the longest backtick run in the text (at least three), so the text
//! can hold anything — Markdown headings, `---` lines, fences, CRLF, trailing
//! spaces. The closing fence must start a line, so a text without a final
//! newline gets one and its info string says `no-final-newline`; the parser
//! then drops exactly that newline. What goes in comes out, byte for byte.
//!
//! This module only splits and joins text; it reads no files and decides no
//! policy.

/// The three body headings, in their required order.
pub const BRIEF_HEADING: &str = "## Brief (verbatim)";
pub const ADDENDA_HEADING: &str = "## Addenda";
pub const NOTES_HEADING: &str = "## Implementation notes";

/// A task file split into its parts, borrowing the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split<'a> {
    /// The YAML between the `---` lines (without them); it starts on line 2.
    pub front_matter: &'a str,
    /// Everything after the closing `---` line, exactly.
    pub body: &'a str,
}

impl Split<'_> {
    /// The body's sections, with lines numbered as in the whole file.
    pub fn parse_body(&self) -> Body {
        // `---`, the front matter's lines, `---`: the body's first line follows.
        parse_body(self.body, self.front_matter.lines().count() + 2)
    }
}

/// Why a task file's layout could not be read; the line is 1-based.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct LayoutError {
    pub line: usize,
    pub message: String,
}

fn layout(line: usize, message: impl Into<String>) -> LayoutError {
    LayoutError {
        line,
        message: message.into(),
    }
}

/// Split off the front matter: the file starts with a `---` line and the
/// front matter ends at the next `---` line.
pub fn split(text: &str) -> Result<Split<'_>, LayoutError> {
    let mut lines = Lines::new(text);
    match lines.next() {
        Some(l) if l.content == "---" => {}
        _ => {
            return Err(layout(
                1,
                "a task file starts with a `---` line opening the front matter",
            ));
        }
    }
    let start = lines.offset;
    for l in lines.by_ref() {
        if l.content == "---" {
            return Ok(Split {
                front_matter: &text[start..l.start],
                body: &text[l.end..],
            });
        }
    }
    Err(layout(1, "the front matter has no closing `---` line"))
}

/// A fenced verbatim block found in a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verbatim {
    /// The text, exactly as it was given.
    pub text: String,
    /// The info string after the opening fence (`text` when gate wrote it).
    pub info: String,
    /// 1-based line of the opening fence.
    pub line: usize,
}

/// The body's three sections.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Body {
    /// The brief's verbatim text, `None` when the section or its block is missing.
    pub brief: Option<Verbatim>,
    /// The raw text of the addenda section after its heading line, `None` when absent.
    pub addenda: Option<Section>,
    /// The raw text of the implementation notes after the heading line, `None` when absent.
    pub notes: Option<Section>,
    /// Layout problems found (sections out of order, stray text, unclosed fences).
    pub problems: Vec<LayoutError>,
}

/// A section's raw text and where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub text: String,
    /// 1-based line of the heading, counted in the body.
    pub line: usize,
}

/// Read the body's sections. Never fails: what is missing or malformed is
/// reported in [`Body::problems`] so a validator can name it; `line_offset`
/// is added to reported lines (the body's first line number in the file, minus 1).
pub fn parse_body(body: &str, line_offset: usize) -> Body {
    let mut out = Body::default();
    // Locate top-level headings (outside fenced blocks).
    let mut headings: Vec<(usize, usize, usize, &str)> = Vec::new(); // (line, start, end, content)
    let mut fence: Option<usize> = None;
    for l in Lines::new(body) {
        let content = l.content;
        match fence {
            Some(n) => {
                if is_closing_fence(content, n) {
                    fence = None;
                }
            }
            None => {
                if let Some(n) = opening_fence(content) {
                    fence = Some(n);
                } else if content.starts_with("## ") {
                    headings.push((l.number + line_offset, l.start, l.end, content));
                }
            }
        }
    }
    if fence.is_some() {
        out.problems.push(layout(
            line_offset + Lines::new(body).count(),
            "a fenced block is never closed",
        ));
    }
    let expected = [BRIEF_HEADING, ADDENDA_HEADING, NOTES_HEADING];
    let mut next_expected = 0;
    for (i, &(line, _, end, content)) in headings.iter().enumerate() {
        let section_end = headings.get(i + 1).map_or(body.len(), |h| h.1);
        let text = &body[end..section_end];
        match expected.iter().position(|e| *e == content.trim_end()) {
            Some(k) if k >= next_expected => {
                next_expected = k + 1;
                match k {
                    0 => match verbatim_only(text, line) {
                        Ok(v) => out.brief = Some(v),
                        Err(e) => out.problems.push(e),
                    },
                    1 => {
                        out.addenda = Some(Section {
                            text: text.to_string(),
                            line,
                        })
                    }
                    _ => {
                        // Free-form notes run to the end: their own headings are theirs.
                        out.notes = Some(Section {
                            text: body[end..].to_string(),
                            line,
                        });
                        break;
                    }
                }
            }
            Some(_) => out.problems.push(layout(
                line,
                format!("`{content}` is out of order or repeated"),
            )),
            None => out
                .problems
                .push(layout(line, format!("unexpected heading `{content}`"))),
        }
    }
    if let Some(&(_, start, _, _)) = headings.first() {
        if !body[..start].trim().is_empty() {
            out.problems
                .push(layout(line_offset + 1, "text before the first section"));
        }
    } else if !body.trim().is_empty() {
        out.problems
            .push(layout(line_offset + 1, "no `## Brief (verbatim)` section"));
    }
    out
}

/// A section that holds exactly one fenced block, blank lines around it.
fn verbatim_only(text: &str, heading_line: usize) -> Result<Verbatim, LayoutError> {
    let blocks = verbatim_blocks(text, heading_line);
    let mut rest = String::new();
    let mut last = 0;
    for (_, start, end) in &blocks {
        rest.push_str(&text[last..*start]);
        last = *end;
    }
    rest.push_str(&text[last..]);
    if !rest.trim().is_empty() {
        return Err(layout(
            heading_line,
            "the brief section holds text outside its fenced block",
        ));
    }
    match blocks.len() {
        1 => Ok(blocks.into_iter().next().map(|b| b.0).expect("one block")),
        0 => Err(layout(
            heading_line,
            "the brief section has no fenced block",
        )),
        _ => Err(layout(
            heading_line,
            "the brief section has more than one fenced block",
        )),
    }
}

/// Every fenced block in `text` with its byte span (from the opening fence
/// line's start to the closing fence line's end). `heading_line` is the line
/// number of the line before `text` begins.
pub fn verbatim_blocks(text: &str, heading_line: usize) -> Vec<(Verbatim, usize, usize)> {
    let mut out = Vec::new();
    let mut open: Option<(usize, usize, usize, String, usize)> = None; // (fence len, block start, content start, info, line)
    for l in Lines::new(text) {
        match &open {
            Some((n, block_start, content_start, info, line)) => {
                if is_closing_fence(l.content, *n) {
                    let raw = &text[*content_start..l.start];
                    // The closing fence sits on its own line: a text without a
                    // final newline got one, and says so in its info string.
                    let content = if info.split_whitespace().any(|w| w == NO_FINAL_NEWLINE) {
                        raw.strip_suffix('\n').unwrap_or(raw)
                    } else {
                        raw
                    };
                    out.push((
                        Verbatim {
                            text: content.to_string(),
                            info: info.clone(),
                            line: *line,
                        },
                        *block_start,
                        l.end,
                    ));
                    open = None;
                }
            }
            None => {
                if let Some(n) = opening_fence(l.content) {
                    let info = l.content[n..].trim().to_string();
                    open = Some((n, l.start, l.end, info, heading_line + l.number));
                }
            }
        }
    }
    out
}

/// The byte offset, in `body`, of the line starting the
/// `## Implementation notes` heading (outside fenced blocks): where a new
/// addendum goes. `None` when the body has no such heading.
pub fn notes_heading_offset(body: &str) -> Option<usize> {
    let mut fence: Option<usize> = None;
    for l in Lines::new(body) {
        match fence {
            Some(n) if is_closing_fence(l.content, n) => fence = None,
            Some(_) => {}
            None => {
                if let Some(n) = opening_fence(l.content) {
                    fence = Some(n);
                } else if l.content.trim_end() == NOTES_HEADING {
                    return Some(l.start);
                }
            }
        }
    }
    None
}

/// The headings (`### …`, without the hashes) of the entries in an addenda
/// section, in order; headings inside fenced blocks are text, not entries.
pub fn entry_headings(section: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence: Option<usize> = None;
    for l in Lines::new(section) {
        match fence {
            Some(n) if is_closing_fence(l.content, n) => fence = None,
            Some(_) => {}
            None => {
                if let Some(n) = opening_fence(l.content) {
                    fence = Some(n);
                } else if let Some(h) = l.content.strip_prefix("### ") {
                    out.push(h.trim().to_string());
                }
            }
        }
    }
    out
}

/// The length of the backtick fence that opens a block on this line, if any.
fn opening_fence(line: &str) -> Option<usize> {
    let n = line.bytes().take_while(|&b| b == b'`').count();
    (n >= 3 && !line[n..].contains('`')).then_some(n)
}

fn is_closing_fence(line: &str, n: usize) -> bool {
    let trimmed = line.trim_end_matches([' ', '\t']);
    trimmed.len() >= n && trimmed.bytes().all(|b| b == b'`')
}

/// The fence for a text: backticks, one more than its longest run, at least three.
pub fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for b in text.bytes() {
        if b == b'`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

/// Render a verbatim block: fence line, the text, one `\n`, closing fence.
pub fn render_verbatim(text: &str, info: &str) -> String {
    let fence = fence_for(text);
    if text.is_empty() || text.ends_with('\n') {
        format!("{fence}{info}\n{text}{fence}\n")
    } else {
        format!("{fence}{info} {NO_FINAL_NEWLINE}\n{text}\n{fence}\n")
    }
}

/// The info-string word that marks a verbatim text without a final newline
/// (the newline before the closing fence is then not part of the text).
pub const NO_FINAL_NEWLINE: &str = "no-final-newline";

/// Render a new task body: the brief, an empty addenda log, empty notes.
pub fn render_new_body(brief: &str) -> String {
    format!(
        "\n{BRIEF_HEADING}\n\n{}\n{ADDENDA_HEADING}\n\n{NOTES_HEADING}\n",
        render_verbatim(brief, "text")
    )
}

/// One line of a text: its content without the line ending (a trailing `\r`
/// is also dropped from `content`), its byte span including the ending, and
/// its 1-based number.
struct Line<'a> {
    content: &'a str,
    start: usize,
    end: usize,
    number: usize,
}

struct Lines<'a> {
    text: &'a str,
    offset: usize,
    number: usize,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Lines<'a> {
        Lines {
            text,
            offset: 0,
            number: 0,
        }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        if self.offset >= self.text.len() {
            return None;
        }
        let start = self.offset;
        let rest = &self.text[start..];
        let (raw, end) = match rest.find('\n') {
            Some(i) => (&rest[..i], start + i + 1),
            None => (rest, self.text.len()),
        };
        self.offset = end;
        self.number += 1;
        Some(Line {
            content: raw.strip_suffix('\r').unwrap_or(raw),
            start,
            end,
            number: self.number,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(brief: &str) {
        let body = render_new_body(brief);
        let parsed = parse_body(&body, 0);
        assert!(parsed.problems.is_empty(), "{:?}\n{body}", parsed.problems);
        assert_eq!(
            parsed.brief.expect("brief").text,
            brief,
            "body was:\n{body}"
        );
        assert_eq!(parsed.addenda.expect("addenda").text, "\n");
        assert_eq!(parsed.notes.expect("notes").text, "");
    }

    #[test]
    fn briefs_round_trip_byte_for_byte() {
        for brief in [
            "",
            "one line",
            "one line\n",
            "ends with two newlines\n\n",
            "\n\nleading blank lines",
            "trailing spaces   \n  and tabs\t\n",
            "crlf\r\nlines\r\n",
            "crlf without final\r\nnewline",
            "unicode: é 日本 🚀\n",
            "## Addenda\n\n## Implementation notes\n---\n",
            "---\nfront: matter\n---\n",
            "```rust\nfn main() {}\n```\n",
            "````\nfour\n`````\nfive\n",
            "a lone ` and `` two",
            "```",
            "\r",
            "\n",
        ] {
            round_trip(brief);
        }
    }

    #[test]
    fn fence_is_longer_than_any_backtick_run() {
        assert_eq!(fence_for("plain"), "```");
        assert_eq!(fence_for("```"), "````");
        assert_eq!(fence_for("a ````` b"), "``````");
    }

    #[test]
    fn split_finds_front_matter_and_keeps_body_exact() {
        let text = "---\nschema: x\n---\n\n## Brief (verbatim)\n";
        let s = split(text).unwrap();
        assert_eq!(s.front_matter, "schema: x\n");
        assert_eq!(s.body, "\n## Brief (verbatim)\n");
        assert_eq!(split("schema: x\n").unwrap_err().line, 1);
        assert!(split("---\nschema: x\n").is_err());
        let crlf = split("---\r\nschema: x\r\n---\r\nbody").unwrap();
        assert_eq!(crlf.front_matter, "schema: x\r\n");
        assert_eq!(crlf.body, "body");
    }

    #[test]
    fn missing_and_misordered_sections_are_reported() {
        let b = parse_body(
            "\n## Addenda\n\n## Brief (verbatim)\n\n```text\nx\n```\n",
            0,
        );
        assert!(
            b.problems
                .iter()
                .any(|p| p.message.contains("out of order")),
            "{:?}",
            b.problems
        );
        let b = parse_body("just text\n", 0);
        assert!(b.brief.is_none());
        assert!(!b.problems.is_empty());
        let b = parse_body("\n## Brief (verbatim)\n\nloose words\n", 0);
        assert!(b.brief.is_none());
        // The heading was found: the fault is about what is under it.
        assert!(
            b.problems
                .iter()
                .any(|p| p.message.contains("text outside its fenced block")),
            "{:?}",
            b.problems
        );
        let b = parse_body("\n## Brief (verbatim)\n\n```text\nnever closed\n", 0);
        assert!(
            b.problems
                .iter()
                .any(|p| p.message.contains("never closed"))
        );
    }

    #[test]
    fn headings_inside_notes_belong_to_the_notes() {
        let body = format!("{}## Sub heading\nmore\n", render_new_body("b"));
        let parsed = parse_body(&body, 0);
        assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);
        assert_eq!(parsed.notes.unwrap().text, "## Sub heading\nmore\n");
    }
}
