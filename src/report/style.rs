//! The only place that chooses colors. Each helper names a meaning (pass,
//! refused, unknown, warn, hint, strong), never a color, and colors only when
//! the stream is a terminal and `NO_COLOR` is unset (owo-colors'
//! `supports-colors`, which also honours `FORCE_COLOR`).

use std::fmt::Display;

use owo_colors::{OwoColorize, Stream};

/// The stream a text is bound for: human reports go to stdout, diagnostics to stderr.
#[derive(Debug, Clone, Copy)]
pub enum Out {
    Stdout,
    Stderr,
}

impl Out {
    fn stream(self) -> Stream {
        match self {
            Out::Stdout => Stream::Stdout,
            Out::Stderr => Stream::Stderr,
        }
    }
}

pub fn pass(out: Out, s: impl Display) -> String {
    s.if_supports_color(out.stream(), |t| t.green()).to_string()
}

pub fn refused(out: Out, s: impl Display) -> String {
    s.if_supports_color(out.stream(), |t| t.red()).to_string()
}

pub fn unknown(out: Out, s: impl Display) -> String {
    s.if_supports_color(out.stream(), |t| t.magenta())
        .to_string()
}

pub fn warn(out: Out, s: impl Display) -> String {
    s.if_supports_color(out.stream(), |t| t.yellow())
        .to_string()
}

pub fn hint(out: Out, s: impl Display) -> String {
    s.if_supports_color(out.stream(), |t| t.cyan()).to_string()
}

pub fn strong(out: Out, s: impl Display) -> String {
    s.if_supports_color(out.stream(), |t| t.bold()).to_string()
}

pub fn dim(out: Out, s: impl Display) -> String {
    s.if_supports_color(out.stream(), |t| t.dimmed())
        .to_string()
}
