//! What a file holds, made safe to print: a brief, an addendum, a plan
//! string, a task field, a commit subject or a ref name reaches the
//! terminal with its control characters written out, never obeyed, so a
//! committed file cannot repaint the screen (a fake "result: pass") or
//! reorder what it shows.
//!
//! One wrapper carries such text: [`FileText`]. The answer types hold it
//! where their text came from a file, so a rendering that writes the field
//! with `{}` shows it escaped as one line without a call at the use;
//! [`FileText::block`] keeps the line breaks of a block (a brief, the
//! addenda) and [`FileText::lines`] keeps them under a heading. It
//! serialises as the exact text: JSON keeps the bytes. Text that reaches a
//! rendering as a plain `&str` is wrapped once, `FileText::new(text)`.
//! Paths have their own, git-style quoting
//! ([`crate::path::RepoPath::quoted`]).

use std::fmt::{self, Display, Write as _};

use serde::Serialize;

/// Text that came from a file (or holds what one holds), on its way to a
/// rendering. `Display` writes it as one line of output: every character a
/// terminal acts on, newlines included, is written out ([`is_unsafe`]), so
/// it cannot start a line of its own. `Serialize` writes the exact text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct FileText<S = String>(S);

impl<S: AsRef<str>> FileText<S> {
    pub fn new(text: S) -> Self {
        FileText(text)
    }

    /// The exact text, for comparing and for JSON built by hand.
    pub fn as_str(&self) -> &str {
        self.0.as_ref()
    }

    /// The text as a block of lines: newlines and tabs stay, every other
    /// character a terminal acts on is written out.
    pub fn block(&self) -> Block<'_> {
        Block(self.as_str())
    }

    /// The text as lines under a heading: each line as one line of output,
    /// the breaks kept, and a line after the first that would start at
    /// column 0 indented by `indent`, so no line of the text can pose as
    /// one of gate's own (a `gate: hint:`, a `result:`).
    pub fn lines<'a>(&'a self, indent: &'a str) -> Lines<'a> {
        Lines(self.as_str(), indent)
    }

    /// Whether showing the text changes it (it holds a character a
    /// terminal would act on).
    pub fn is_plain(&self) -> bool {
        !self.as_str().chars().any(|c| c != '\t' && is_unsafe(c))
    }
}

impl FileText {
    /// `texts` as one line, `sep` between them.
    pub fn joined<'a>(texts: &'a [FileText], sep: &'a str) -> Joined<'a> {
        Joined(texts, sep)
    }

    /// Each of `texts` wrapped.
    pub fn all<T: Into<FileText>>(texts: impl IntoIterator<Item = T>) -> Vec<FileText> {
        texts.into_iter().map(Into::into).collect()
    }
}

impl From<String> for FileText {
    fn from(text: String) -> Self {
        FileText(text)
    }
}

impl From<&str> for FileText {
    fn from(text: &str) -> Self {
        FileText(text.to_string())
    }
}

impl From<&String> for FileText {
    fn from(text: &String) -> Self {
        FileText(text.clone())
    }
}

impl<S: AsRef<str>> Display for FileText<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.width().is_some() || f.precision().is_some() {
            // Padded: escape first, so the width counts what is shown.
            let mut shown = String::new();
            escape(&mut shown, self.as_str(), |c| c != '\t' && is_unsafe(c))?;
            return f.pad(&shown);
        }
        escape(f, self.as_str(), |c| c != '\t' && is_unsafe(c))
    }
}

impl<S> schemars::JsonSchema for FileText<S> {
    fn inline_schema() -> bool {
        <String as schemars::JsonSchema>::inline_schema()
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        <String as schemars::JsonSchema>::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        <String as schemars::JsonSchema>::schema_id()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <String as schemars::JsonSchema>::json_schema(generator)
    }
}

/// [`FileText::block`].
pub struct Block<'a>(&'a str);

impl Display for Block<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        escape(f, self.0, |c| c != '\n' && c != '\t' && is_unsafe(c))
    }
}

/// [`FileText::joined`].
pub struct Joined<'a>(&'a [FileText], &'a str);

impl Display for Joined<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, text) in self.0.iter().enumerate() {
            if n > 0 {
                f.write_str(self.1)?;
            }
            write!(f, "{text}")?;
        }
        Ok(())
    }
}

/// [`FileText::lines`].
pub struct Lines<'a>(&'a str, &'a str);

impl Display for Lines<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Lines(text, indent) = *self;
        for (n, line) in text.trim_end_matches('\n').split('\n').enumerate() {
            if n > 0 {
                f.write_char('\n')?;
                if !line.starts_with([' ', '\t']) {
                    f.write_str(indent)?;
                }
            }
            write!(f, "{}", FileText::new(line))?;
        }
        Ok(())
    }
}

/// The characters a terminal would act on rather than show: C0 controls
/// (ESC starts ANSI and OSC sequences; CR and backspace overwrite), DEL, C1
/// controls (U+009B is a one-character CSI) and the bidirectional embeddings,
/// overrides and isolates, which reorder what follows them on screen.
fn is_unsafe(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Writes `text` with each character `unsafe_char` names written out, the
/// runs between them as they are.
fn escape(f: &mut impl fmt::Write, text: &str, unsafe_char: impl Fn(char) -> bool) -> fmt::Result {
    let mut plain = 0;
    for (at, c) in text.char_indices() {
        if !unsafe_char(c) {
            continue;
        }
        f.write_str(&text[plain..at])?;
        plain = at + c.len_utf8();
        match c {
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            c if (c as u32) < 0x80 => write!(f, "\\x{:02x}", c as u32)?,
            c => write!(f, "\\u{{{:04x}}}", c as u32)?,
        }
    }
    f.write_str(&text[plain..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> String {
        FileText::new(text).to_string()
    }

    fn block(text: &str) -> String {
        FileText::new(text).block().to_string()
    }

    #[test]
    fn plain_text_is_shown_as_it_is() {
        assert_eq!(block("a brief\n\twith é 日本"), "a brief\n\twith é 日本");
        assert_eq!(line("a title"), "a title");
        assert!(FileText::new("a\ttitle").is_plain());
        assert!(!FileText::new("a\ntitle").is_plain());
    }

    #[test]
    fn escape_sequences_are_written_out() {
        assert_eq!(
            block("\u{1b}[2J\u{1b}[Hresult: \u{1b}[32mpass\u{1b}[0m\n"),
            "\\x1b[2J\\x1b[Hresult: \\x1b[32mpass\\x1b[0m\n"
        );
        assert_eq!(block("\u{1b}]0;title\u{7}x\r"), "\\x1b]0;title\\x07x\\r");
        assert_eq!(block("a\u{7f}\u{9b}2J"), "a\\x7f\\u{009b}2J");
        assert_eq!(block("\u{202e}txt.exe"), "\\u{202e}txt.exe");
        assert_eq!(block("back\u{8}\u{8}"), "back\\x08\\x08");
    }

    #[test]
    fn a_line_cannot_start_another() {
        assert_eq!(block("a\nb"), "a\nb");
        assert_eq!(line("a\nresult: pass"), "a\\nresult: pass");
        assert_eq!(line("a\tb"), "a\tb");
    }

    #[test]
    fn a_padded_line_counts_what_is_shown() {
        assert_eq!(format!("{:<6}|", FileText::new("a\u{7}")), "a\\x07 |");
        assert_eq!(format!("{:>3}|", FileText::new("ab")), " ab|");
    }

    #[test]
    fn json_keeps_the_exact_text() {
        let text = FileText::from("a\u{1b}[2J\nb");
        assert_eq!(
            serde_json::to_string(&text).unwrap(),
            serde_json::to_string("a\u{1b}[2J\nb").unwrap()
        );
    }

    #[test]
    fn lines_keep_their_breaks_and_stay_under_their_heading() {
        let lines = |text: &str| FileText::new(text).lines("  ").to_string();
        assert_eq!(
            lines("refused:\n  cause: why\n    decide: how\n"),
            "refused:\n  cause: why\n    decide: how"
        );
        assert_eq!(lines("a\ngate: hint: obey\r"), "a\n  gate: hint: obey\\r");
        assert_eq!(lines("one line"), "one line");
    }
}
