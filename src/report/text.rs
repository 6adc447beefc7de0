//! What a file holds, made safe to print: a brief, an addendum, a plan
//! string, a task field, a commit subject or a ref name reaches the
//! terminal with its control characters written out, never obeyed, so a
//! committed file cannot repaint the screen (a fake "result: pass") or
//! reorder what it shows. Human renderings pass every such text through
//! [`shown`] or [`shown_line`]; JSON keeps the exact text. Paths have their
//! own, git-style quoting ([`crate::path::RepoPath::quoted`]).

use std::borrow::Cow;
use std::fmt::Write as _;

/// `text` for a block of lines (a brief, the addenda): newlines and tabs
/// stay; every other character a terminal acts on is written out
/// ([`is_unsafe`]). Plain text comes back borrowed.
pub fn shown(text: &str) -> Cow<'_, str> {
    escape(text, |c| c != '\n' && c != '\t' && is_unsafe(c))
}

/// `text` for one line of output (a field, a message, a title): like
/// [`shown`], and a newline is written out too, so the text cannot start a
/// line of its own.
pub fn shown_line(text: &str) -> Cow<'_, str> {
    escape(text, |c| c != '\t' && is_unsafe(c))
}

/// `text` as lines of output under a heading: each line like
/// [`shown_line`], the line breaks gate put there kept as breaks, and a
/// line after the first that would start at column 0 indented by
/// `indent`, so no line of the text can pose as one of gate's own (a
/// `gate: hint:`, a `result:`).
pub fn shown_lines(text: &str, indent: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (n, line) in text.trim_end_matches('\n').split('\n').enumerate() {
        if n > 0 {
            out.push('\n');
            if !line.starts_with([' ', '\t']) {
                out.push_str(indent);
            }
        }
        out.push_str(&shown_line(line));
    }
    out
}

/// The characters a terminal would act on rather than show: C0 controls
/// (ESC starts ANSI and OSC sequences; CR and backspace overwrite), DEL, C1
/// controls (U+009B is a one-character CSI) and the bidirectional embeddings,
/// overrides and isolates, which reorder what follows them on screen.
fn is_unsafe(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn escape(text: &str, unsafe_char: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(&unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if !unsafe_char(c) => out.push(c),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\u{{{:04x}}}", c as u32);
            }
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(shown("a brief\n\twith é 日本"), Cow::Borrowed(_)));
        assert!(matches!(shown_line("a title"), Cow::Borrowed(_)));
    }

    #[test]
    fn escape_sequences_are_written_out() {
        assert_eq!(
            shown("\u{1b}[2J\u{1b}[Hresult: \u{1b}[32mpass\u{1b}[0m\n"),
            "\\x1b[2J\\x1b[Hresult: \\x1b[32mpass\\x1b[0m\n"
        );
        assert_eq!(shown("\u{1b}]0;title\u{7}x\r"), "\\x1b]0;title\\x07x\\r");
        assert_eq!(shown("a\u{7f}\u{9b}2J"), "a\\x7f\\u{009b}2J");
        assert_eq!(shown("\u{202e}txt.exe"), "\\u{202e}txt.exe");
        assert_eq!(shown("back\u{8}\u{8}"), "back\\x08\\x08");
    }

    #[test]
    fn a_line_cannot_start_another() {
        assert_eq!(shown("a\nb"), "a\nb");
        assert_eq!(shown_line("a\nresult: pass"), "a\\nresult: pass");
        assert_eq!(shown_line("a\tb"), "a\tb");
    }

    #[test]
    fn lines_keep_their_breaks_and_stay_under_their_heading() {
        assert_eq!(
            shown_lines("refused:\n  cause: why\n    decide: how\n", "  "),
            "refused:\n  cause: why\n    decide: how"
        );
        assert_eq!(
            shown_lines("a\ngate: hint: obey\r", "  "),
            "a\n  gate: hint: obey\\r"
        );
        assert_eq!(shown_lines("one line", "  "), "one line");
    }
}
