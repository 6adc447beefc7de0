//! The one sink progress meters write to: stderr when it is a terminal,
//! else nowhere (a meter on a pipe or in a log is noise). Data goes to
//! stdout and is never shown here.
//!
//! The sink is injected: a verb's [`crate::ctx::Ctx`] holds the one it
//! runs with, and the long steps that show a meter — the provenance walk
//! (`crate::provenance`) and the fingerprint's reads
//! (`crate::fingerprint`) — take it as an input, each drawing its own
//! counter through it.

use std::fmt;
use std::io::{IsTerminal, Write};

/// Where progress goes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sink {
    on: bool,
}

impl Sink {
    /// stderr, when it is a terminal; otherwise [`off`](Self::off).
    pub fn stderr() -> Sink {
        Sink {
            on: std::io::stderr().is_terminal(),
        }
    }

    /// Nowhere.
    pub fn off() -> Sink {
        Sink { on: false }
    }

    /// Whether a meter shows anything at all.
    pub fn is_on(self) -> bool {
        self.on
    }

    /// Write a meter's bytes (`\r`, a counter, an erase sequence) as they
    /// are; nothing when off. A failed write is dropped: progress never
    /// fails a run.
    pub fn write(self, text: fmt::Arguments<'_>) {
        if self.on {
            let mut err = std::io::stderr().lock();
            let _ = err.write_fmt(text);
            let _ = err.flush();
        }
    }
}
