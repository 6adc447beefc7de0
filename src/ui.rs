//! The doors' one writer and a verb's answer (docs/architecture.md, "The
//! output seam").
//!
//! A verb computes an [`Answer`] — its exit code and what it has to say, as
//! data — and writes nothing itself. What it says *while* it runs (a check
//! starting, receipts sent, a trailer not added) goes through the [`Ui`]
//! passed down to it, as jj's `Ui` and cargo's `Shell` are: the only
//! writer. The CLI's dispatcher renders the answer once, in the format the
//! command line asked for, and maps it to the exit code; `gate mcp` takes
//! the same answer's document as the tool's result, with no command line
//! built and no output parsed.

use std::io::{self, IsTerminal, Read, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use crate::error::Failure;
use crate::verdict::ExitCode;

/// Inputs longer than this are refused (docs/brief.md: briefs and addenda up to 100 KiB).
pub const MAX_INPUT_BYTES: usize = 100 * 1024;

/// Texts given for `-`, by the flag that reads them (`--brief`).
pub type Given = Vec<(&'static str, Vec<u8>)>;

/// Where a run's output goes, and where a `-` input comes from.
pub struct Ui {
    /// Set once stdout's reader has gone away.
    stdout_closed: AtomicBool,
    /// `None`: a `-` input is read from stdin. `Some`: the texts given for
    /// `-`, by flag (`gate mcp`, whose stdin is the protocol's channel).
    given: Option<Mutex<Given>>,
}

impl Ui {
    /// The process's own streams: stdout, stderr, and stdin for `-`.
    pub fn terminal() -> Ui {
        Ui {
            stdout_closed: AtomicBool::new(false),
            given: None,
        }
    }

    /// A run whose `-` inputs are `given` (by flag) and never read from
    /// stdin; what it says while running goes to stderr.
    pub fn given(inputs: Given) -> Ui {
        Ui {
            stdout_closed: AtomicBool::new(false),
            given: Some(Mutex::new(inputs)),
        }
    }

    /// Write to stdout. A closed pipe (`gate check --range A..B | head`)
    /// stops the output quietly but not the verb: it still exits with its
    /// own code, so a refused range piped into `head` is still refused.
    pub fn out(&self, text: &str) {
        if self.stdout_closed.load(Ordering::Relaxed) {
            return;
        }
        let mut stdout = io::stdout().lock();
        if let Err(e) = stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush())
            && e.kind() == io::ErrorKind::BrokenPipe
        {
            self.stdout_closed.store(true, Ordering::Relaxed);
        }
    }

    /// A writer onto [`Ui::out`] for a document too big to build as one
    /// string first (a whole history's JSON report is tens of megabytes).
    pub fn writer(&self) -> OutWriter<impl FnMut(&str) + '_> {
        OutWriter::new(|text| self.out(text))
    }

    /// Write what a verb says while it runs, or after its answer, to stderr.
    pub fn err(&self, text: &str) {
        let _ = io::stderr().lock().write_all(text.as_bytes());
    }

    /// The streams a command gate runs writes through (`gate verify`'s
    /// check): its stdout onto gate's stdout, or onto stderr when stdout
    /// holds a JSON document; its stderr onto stderr.
    pub fn command_streams(&self, json: bool) -> (Box<dyn Write + Send>, Box<dyn Write + Send>) {
        let stdout: Box<dyn Write + Send> = if json {
            Box::new(io::stderr())
        } else {
            Box::new(io::stdout())
        };
        (stdout, Box::new(io::stderr()))
    }

    /// What a verb says of its own work while it runs, beside a command's
    /// output: on stdout, or on stderr when stdout holds a JSON document.
    pub fn aside(&self, json: bool, text: &str) {
        if json { self.err(text) } else { self.out(text) }
    }

    /// Whether an input given as `-` reads stdin, one stream for all of
    /// them: not when the texts are given on their own.
    pub fn dash_reads_stdin(&self) -> bool {
        self.given.is_none()
    }

    /// Read a verbatim input from a file or `-` (stdin, or the text given
    /// for `flag`), refusing more than [`MAX_INPUT_BYTES`] without reading
    /// further.
    pub fn read_input(&self, spec: &str, flag: &str) -> Result<Vec<u8>, Failure> {
        let mut bytes = Vec::new();
        let limit = MAX_INPUT_BYTES as u64 + 1;
        let read = if spec == "-"
            && let Some(given) = &self.given
        {
            // Under `gate mcp` stdin is the protocol's channel: never read.
            let mut given = given.lock().unwrap_or_else(|p| p.into_inner());
            let taken = given
                .iter()
                .position(|(f, _)| *f == flag)
                .map(|i| given.swap_remove(i).1);
            bytes = taken.ok_or_else(|| {
                Failure::usage(format!(
                    "{flag} -: stdin is the MCP channel here, not the text to read"
                ))
                .hint("give the text as the tool's argument")
            })?;
            Ok(bytes.len())
        } else if spec == "-" {
            // A terminal would wait for typing nobody meant to do: `-` is
            // for a pipe or a here-doc (README.md).
            if io::stdin().is_terminal() {
                return Err(Failure::usage(format!(
                    "{flag} -: stdin is a terminal, not the text to read"
                ))
                .hint(format!(
                    "pipe it in or use a here-doc (`{flag} - <<'EOF'` … `EOF`), or give {flag} FILE"
                )));
            }
            io::stdin().lock().take(limit).read_to_end(&mut bytes)
        } else {
            std::fs::File::open(spec).and_then(|f| f.take(limit).read_to_end(&mut bytes))
        };
        read.map_err(|e| Failure::refused(format!("{flag} {spec}: {e}")))?;
        if bytes.len() > MAX_INPUT_BYTES {
            return Err(Failure::refused(format!(
                "{flag} {spec}: over the {} KiB limit",
                MAX_INPUT_BYTES / 1024
            )));
        }
        Ok(bytes)
    }
}

/// A writer onto a text sink ([`Ui::out`]): what is written goes out in
/// pieces of about 64 KiB, each cut where a UTF-8 character ends, the rest
/// when it is flushed or dropped.
pub struct OutWriter<F: FnMut(&str)> {
    sink: F,
    pending: Vec<u8>,
}

const PIECE: usize = 64 * 1024;

impl<F: FnMut(&str)> OutWriter<F> {
    fn new(sink: F) -> OutWriter<F> {
        OutWriter {
            sink,
            pending: Vec::with_capacity(PIECE + 1024),
        }
    }

    /// Send every whole character held.
    fn send(&mut self) {
        let whole = match std::str::from_utf8(&self.pending) {
            Ok(text) => text.len(),
            Err(e) => e.valid_up_to(),
        };
        if whole == 0 {
            return;
        }
        let text = std::str::from_utf8(&self.pending[..whole]).expect("cut at a char boundary");
        (self.sink)(text);
        self.pending.drain(..whole);
    }
}

impl<F: FnMut(&str)> Write for OutWriter<F> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(bytes);
        if self.pending.len() >= PIECE {
            self.send();
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.send();
        Ok(())
    }
}

impl<F: FnMut(&str)> Drop for OutWriter<F> {
    fn drop(&mut self) {
        self.send();
    }
}

/// What a verb has to say as a document: a JSON form (`--json`, and what
/// `gate mcp` answers) and a form for people.
pub trait Document {
    /// The JSON document, as the CLI prints it (pretty, one newline at
    /// the end), written onto `w` as it is serialised.
    fn json(&self, w: &mut dyn Write) -> io::Result<()>;
    /// The same document as a value.
    fn value(&self) -> serde_json::Value;
    /// What is printed when JSON is not asked for.
    fn text(&self) -> String;
}

/// A document whose JSON form is a wire struct made from it on demand
/// (`crate::report::wire`): implement this, and [`Document`] follows.
pub trait Shown {
    type Wire<'a>: Serialize
    where
        Self: 'a;
    /// The wire form, borrowing from the answer.
    fn wire(&self) -> Self::Wire<'_>;
    /// What is printed when JSON is not asked for.
    fn text(&self) -> String;
}

impl<T: Shown> Document for T {
    fn json(&self, w: &mut dyn Write) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *w, &self.wire()).map_err(io::Error::from)?;
        w.write_all(b"\n")?;
        w.flush()
    }

    fn value(&self) -> serde_json::Value {
        serde_json::to_value(self.wire()).expect("wire structs always serialise")
    }

    fn text(&self) -> String {
        Shown::text(self)
    }
}

/// What a verb answers: its exit code and what it has to say.
pub struct Answer {
    pub code: ExitCode,
    said: Said,
    /// Whether the answer is plain data, left to the kernel once rendered
    /// in a process that exits after it ([`crate::exiting`]).
    plain: bool,
    /// Said on stderr after the answer (advice that follows it), each
    /// with the formats it is said in.
    after: Vec<(String, After)>,
}

/// The formats a text said after the answer is said in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum After {
    Always,
    /// For people only: under JSON the document says it.
    Text,
    /// Under JSON only: for people the answer's text says it.
    Json,
}

enum Said {
    Nothing,
    /// Text only: a verb without a JSON form (`gate install`,
    /// `gate completions`), or a hook's line for git or an agent host.
    Text(String),
    Document(Box<dyn Document>),
}

impl Answer {
    /// Nothing to print.
    pub fn quiet(code: ExitCode) -> Answer {
        Answer {
            code,
            said: Said::Nothing,
            plain: false,
            after: Vec::new(),
        }
    }

    /// Text for stdout, in every format.
    pub fn text(code: ExitCode, text: String) -> Answer {
        Answer {
            code,
            said: Said::Text(text),
            plain: false,
            after: Vec::new(),
        }
    }

    /// A document: JSON or text, as asked.
    pub fn document(code: ExitCode, doc: impl Document + 'static) -> Answer {
        Answer {
            code,
            said: Said::Document(Box::new(doc)),
            plain: false,
            after: Vec::new(),
        }
    }

    /// Say that the answer is plain data (no `Drop` of its own does
    /// anything but free memory): once rendered it is let go as
    /// [`crate::exiting::let_go`] says (a whole history's report holds a
    /// finding and its strings a refused commit).
    pub fn plain(mut self) -> Answer {
        self.plain = true;
        self
    }

    /// Add `text` to what is said on stderr after the answer.
    pub fn then_err(mut self, text: String) -> Answer {
        self.after.push((text, After::Always));
        self
    }

    /// Add `text` to what is said on stderr after the answer when the
    /// answer is printed for people (under JSON the document says it).
    pub fn then_err_for_people(mut self, text: String) -> Answer {
        self.after.push((text, After::Text));
        self
    }

    /// Add `text` to what is said on stderr after the answer under JSON
    /// (the text form of the answer holds it already).
    pub fn then_err_under_json(mut self, text: String) -> Answer {
        self.after.push((text, After::Json));
        self
    }

    /// The answer's document, if it has one.
    pub fn doc(&self) -> Option<&dyn Document> {
        match &self.said {
            Said::Document(doc) => Some(doc.as_ref()),
            _ => None,
        }
    }

    /// Write the answer through `ui`, its document as JSON when `json`,
    /// and return its exit code.
    pub fn render(self, ui: &Ui, json: bool) -> i32 {
        match &self.said {
            Said::Nothing => {}
            Said::Text(text) => ui.out(text),
            // Every byte, and the document never held as one string.
            Said::Document(doc) if json => {
                let _ = doc.json(&mut ui.writer());
            }
            Said::Document(doc) => ui.out(&doc.text()),
        }
        self.say_after(ui, json);
        let code = self.code.code();
        if self.plain {
            crate::exiting::let_go(self);
        }
        code
    }

    /// Say on stderr what follows the answer in this format.
    pub fn say_after(&self, ui: &Ui, json: bool) {
        for (text, when) in &self.after {
            let said = match when {
                After::Always => true,
                After::Text => !json,
                After::Json => json,
            };
            if said {
                ui.err(text);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Plain(&'static str);

    impl Shown for Plain {
        type Wire<'a> = &'a str;
        fn wire(&self) -> &str {
            self.0
        }
        fn text(&self) -> String {
            format!("{}\n", self.0)
        }
    }

    /// The JSON form is the wire struct as `report::json::to_string`
    /// prints it (pretty, one newline), and the value is the same
    /// document.
    #[test]
    fn a_shown_answer_is_its_wire_struct_printed_or_as_a_value() {
        let doc = Plain("é\"x");
        let mut printed = Vec::new();
        doc.json(&mut printed).unwrap();
        assert_eq!(String::from_utf8(printed).unwrap(), "\"é\\\"x\"\n");
        assert_eq!(doc.value(), serde_json::json!("é\"x"));
        assert_eq!(Document::text(&doc), "é\"x\n");
    }

    /// A document written in pieces cut anywhere, a character's bytes
    /// included, comes out whole and in order.
    #[test]
    fn a_writer_onto_out_cuts_only_between_characters() {
        let text: String = (0..80_000).map(|i| ['a', 'é', '€', '𝄞'][i % 4]).collect();
        let mut printed = String::new();
        let mut cuts = 0;
        {
            let mut w = OutWriter::new(|piece: &str| {
                printed.push_str(piece);
                cuts += 1;
            });
            for piece in text.as_bytes().chunks(7) {
                w.write_all(piece).unwrap();
            }
            // The rest goes out when the writer is dropped.
        }
        assert_eq!(printed, text);
        assert!(text.len() > 2 * PIECE && cuts > 2, "{cuts} pieces");
    }

    /// The texts given for `-` are taken by flag, once each, and stdin is
    /// never read for them.
    #[test]
    fn a_given_input_is_taken_by_its_flag_once() {
        let ui = Ui::given(vec![("--brief", b"the brief".to_vec())]);
        assert!(!ui.dash_reads_stdin());
        assert_eq!(ui.read_input("-", "--brief").unwrap(), b"the brief");
        let again = ui.read_input("-", "--brief").unwrap_err();
        assert!(again.message.contains("MCP channel"), "{}", again.message);
    }
}
