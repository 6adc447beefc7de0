//! The only place that chooses colors. Each helper names a meaning (pass,
//! refused, unknown, warn, hint, strong), never a color, and colors only when
//! the stream is a terminal (or `FORCE_COLOR` asks for it, through
//! owo-colors' `supports-colors`) — and never when `NO_COLOR` is set, even
//! beside `FORCE_COLOR`.

use std::fmt::Display;
use std::sync::OnceLock;

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

/// `NO_COLOR` set to anything but the empty string turns color off.
fn no_color() -> bool {
    static NO_COLOR: OnceLock<bool> = OnceLock::new();
    *NO_COLOR.get_or_init(|| std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()))
}

pub fn pass(out: Out, s: impl Display) -> String {
    if no_color() {
        return s.to_string();
    }
    s.if_supports_color(out.stream(), |t| t.green()).to_string()
}

pub fn refused(out: Out, s: impl Display) -> String {
    if no_color() {
        return s.to_string();
    }
    s.if_supports_color(out.stream(), |t| t.red()).to_string()
}

pub fn unknown(out: Out, s: impl Display) -> String {
    if no_color() {
        return s.to_string();
    }
    s.if_supports_color(out.stream(), |t| t.magenta())
        .to_string()
}

pub fn warn(out: Out, s: impl Display) -> String {
    if no_color() {
        return s.to_string();
    }
    s.if_supports_color(out.stream(), |t| t.yellow())
        .to_string()
}

pub fn hint(out: Out, s: impl Display) -> String {
    if no_color() {
        return s.to_string();
    }
    s.if_supports_color(out.stream(), |t| t.cyan()).to_string()
}

pub fn strong(out: Out, s: impl Display) -> String {
    if no_color() {
        return s.to_string();
    }
    s.if_supports_color(out.stream(), |t| t.bold()).to_string()
}

pub fn dim(out: Out, s: impl Display) -> String {
    if no_color() {
        return s.to_string();
    }
    s.if_supports_color(out.stream(), |t| t.dimmed())
        .to_string()
}
