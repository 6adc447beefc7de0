//! The line layer between the client and rmcp (docs/agents.md#mcp-server):
//! `gate mcp` reads one JSON-RPC message a line, and answers every line it
//! cannot take, where rmcp alone drops a line that is not JSON, or longer
//! than its cap, without a word.
//!
//! [`requests`] reads the client's lines, holding at most `max` bytes of
//! one: a line of JSON goes on to rmcp as it came; a line that is not JSON
//! is answered with a JSON-RPC parse error (`-32700`); a line longer than
//! the cap, with an invalid request (`-32600`) the moment it passes the cap,
//! and the rest of it is read and dropped. Both errors carry `"id": null`,
//! as JSON-RPC 2.0 says for a request whose id could not be read. A blank
//! line is skipped. [`replies`] carries rmcp's replies to the client. Both
//! write whole lines under one lock, so an error never lands inside a reply.
//!
//! This layer knows JSON-RPC's envelope and nothing of MCP: what a line of
//! JSON means is rmcp's to decide (it answers well-formed JSON that is no
//! JSON-RPC message with `-32600` itself).

use std::io;
use std::sync::Arc;

use serde::Serialize;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// The longest line a client may send, its newline aside: 4 MiB. A tool's
/// arguments are a brief, a question, a list of paths; a longer line is no
/// request gate serves, and the cap bounds what one line can make the
/// server hold.
pub const MAX_LINE: usize = 4 * 1024 * 1024;

/// The client's end of the protocol stream, which both directions write to
/// a whole line at a time.
pub type Out<W> = Arc<Mutex<W>>;

/// Carry the client's lines to rmcp (`to_rmcp`) until the client closes
/// its stream, answering on `out` each line that is not JSON or is longer
/// than `max` bytes. Returns when `input` ends or a write fails (the client
/// or rmcp went away); `to_rmcp` is dropped then, which ends rmcp's session.
pub async fn requests<R, W, O>(
    mut input: R,
    mut to_rmcp: W,
    out: Out<O>,
    max: usize,
) -> io::Result<()>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
    O: AsyncWrite + Unpin,
{
    let mut line = Vec::new();
    // Set from the moment a line passes `max` until its newline.
    let mut discarding = false;
    loop {
        let chunk = input.fill_buf().await?;
        if chunk.is_empty() {
            // The client closed its stream: a last line without its
            // newline is still a line.
            if !discarding && !line.is_empty() {
                line.push(b'\n');
                take(&line, &mut to_rmcp, &out).await?;
            }
            return Ok(());
        }
        let newline = chunk.iter().position(|&b| b == b'\n');
        let text = newline.unwrap_or(chunk.len());
        let consumed = newline.map_or(chunk.len(), |at| at + 1);
        let over = !discarding && line.len() + text > max;
        if !discarding && !over {
            line.extend_from_slice(&chunk[..consumed]);
        }
        input.consume(consumed);
        if over {
            line.clear();
            discarding = true;
            write_line(&out, &too_long(max)).await?;
        }
        if newline.is_some() {
            if !discarding {
                take(&line, &mut to_rmcp, &out).await?;
            }
            line.clear();
            discarding = false;
        }
    }
}

/// Carry rmcp's replies to the client, each line whole, until rmcp closes
/// its end.
pub async fn replies<R, O>(from_rmcp: R, out: Out<O>) -> io::Result<()>
where
    R: AsyncRead + Unpin,
    O: AsyncWrite + Unpin,
{
    let mut from_rmcp = BufReader::new(from_rmcp);
    let mut line = Vec::new();
    loop {
        line.clear();
        if from_rmcp.read_until(b'\n', &mut line).await? == 0 {
            return Ok(());
        }
        write_line(&out, &line).await?;
    }
}

/// One whole line from the client (its newline included): on to rmcp when
/// it is JSON, answered when it is not, skipped when blank.
async fn take<W, O>(line: &[u8], to_rmcp: &mut W, out: &Out<O>) -> io::Result<()>
where
    W: AsyncWrite + Unpin,
    O: AsyncWrite + Unpin,
{
    match judge(line) {
        Judged::Blank => Ok(()),
        Judged::Json => {
            to_rmcp.write_all(line).await?;
            to_rmcp.flush().await
        }
        Judged::NotJson(e) => write_line(out, &not_json(&e)).await,
    }
}

async fn write_line<O: AsyncWrite + Unpin>(out: &Out<O>, line: &[u8]) -> io::Result<()> {
    let mut out = out.lock().await;
    out.write_all(line).await?;
    out.flush().await
}

/// What one line from the client is.
#[derive(Debug)]
enum Judged {
    /// Nothing but white space: no message, no answer.
    Blank,
    /// One JSON value, for rmcp to read as a message.
    Json,
    /// Not JSON: why.
    NotJson(serde_json::Error),
}

/// The byte order mark RFC 8259 lets a reader ignore (rmcp does).
const BOM: &[u8] = b"\xEF\xBB\xBF";

fn judge(line: &[u8]) -> Judged {
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    let body = body.strip_prefix(BOM).unwrap_or(body);
    if body.iter().all(u8::is_ascii_whitespace) {
        return Judged::Blank;
    }
    match serde_json::from_slice::<serde::de::IgnoredAny>(body) {
        Ok(_) => Judged::Json,
        Err(e) => Judged::NotJson(e),
    }
}

/// A JSON-RPC error response to a request that could not be read.
#[derive(Serialize)]
struct Reply {
    jsonrpc: &'static str,
    /// Always null: the request's id could not be read.
    id: (),
    error: ErrorObject,
}

#[derive(Serialize)]
struct ErrorObject {
    code: i32,
    message: String,
}

/// JSON-RPC 2.0's codes for a line that is not JSON, and for one that is no
/// request gate reads.
const PARSE_ERROR: i32 = -32700;
const INVALID_REQUEST: i32 = -32600;

fn error_line(code: i32, message: String) -> Vec<u8> {
    let reply = Reply {
        jsonrpc: "2.0",
        id: (),
        error: ErrorObject { code, message },
    };
    let mut line = serde_json::to_vec(&reply).expect("a struct of strings and numbers serializes");
    line.push(b'\n');
    line
}

fn not_json(e: &serde_json::Error) -> Vec<u8> {
    error_line(
        PARSE_ERROR,
        format!(
            "Parse error: the line is not JSON ({e}); gate mcp reads one JSON-RPC message a line"
        ),
    )
}

fn too_long(max: usize) -> Vec<u8> {
    const MIB: usize = 1024 * 1024;
    let size = if max.is_multiple_of(MIB) {
        format!("{max} bytes ({} MiB)", max / MIB)
    } else {
        format!("{max} bytes")
    };
    error_line(
        INVALID_REQUEST,
        format!(
            "Invalid Request: the line is longer than {size}, the most gate mcp reads as one message; it was discarded"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// What `requests` hands rmcp and what it answers, for `input` read
    /// `chunk` bytes at a time with lines of at most `max` bytes.
    fn run(input: &[u8], chunk: usize, max: usize) -> (String, Vec<Value>) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        let out = Arc::new(Mutex::new(Vec::new()));
        let mut to_rmcp = Vec::new();
        let input = tokio::io::BufReader::with_capacity(chunk, input);
        runtime
            .block_on(requests(input, &mut to_rmcp, out.clone(), max))
            .expect("in-memory I/O");
        let answered = runtime.block_on(out.lock()).clone();
        let answers = String::from_utf8(answered)
            .expect("UTF-8")
            .lines()
            .map(|l| serde_json::from_str(l).expect("each answer is one JSON line"))
            .collect();
        (String::from_utf8(to_rmcp).expect("UTF-8"), answers)
    }

    #[test]
    fn json_lines_pass_as_they_came_and_blank_ones_are_skipped() {
        let input = "{\"id\":1}\n\n  \r\n\u{feff}{\"id\":2}\r\n[1, 2]\n";
        for chunk in [1, 3, 64] {
            let (passed, answers) = run(input.as_bytes(), chunk, 64);
            assert_eq!(passed, "{\"id\":1}\n\u{feff}{\"id\":2}\r\n[1, 2]\n");
            assert!(answers.is_empty(), "{answers:?}");
        }
    }

    #[test]
    fn a_line_that_is_not_json_is_a_parse_error_with_a_null_id() {
        let input = b"hello\n{\"id\":1}\n{\"id\":\n\xff\xfe\n{\"id\":2}\n";
        let (passed, answers) = run(input, 5, 64);
        assert_eq!(passed, "{\"id\":1}\n{\"id\":2}\n");
        assert_eq!(answers.len(), 3, "{answers:?}");
        for a in &answers {
            assert_eq!(a["jsonrpc"], "2.0");
            assert_eq!(a["id"], Value::Null);
            assert!(a.as_object().unwrap().contains_key("id"), "{a}");
            assert_eq!(a["error"]["code"], -32700);
            let message = a["error"]["message"].as_str().unwrap();
            assert!(
                message.starts_with("Parse error: the line is not JSON ("),
                "{message}"
            );
        }
    }

    #[test]
    fn a_line_longer_than_the_cap_is_answered_once_and_dropped() {
        let long = format!("{{\"id\":1,\"pad\":\"{}\"}}", "x".repeat(100));
        let input = format!("{long}\n{{\"id\":2}}\n");
        for chunk in [1, 7, 4096] {
            let (passed, answers) = run(input.as_bytes(), chunk, 32);
            assert_eq!(passed, "{\"id\":2}\n", "chunk {chunk}");
            assert_eq!(answers.len(), 1, "chunk {chunk}: {answers:?}");
            assert_eq!(answers[0]["id"], Value::Null);
            assert_eq!(answers[0]["error"]["code"], -32600);
            assert_eq!(
                answers[0]["error"]["message"],
                "Invalid Request: the line is longer than 32 bytes, the most gate mcp reads as one message; it was discarded"
            );
        }
    }

    #[test]
    fn the_cap_counts_the_line_without_its_newline() {
        let line = format!("{{\"p\":\"{}\"}}", "x".repeat(24));
        assert_eq!(line.len(), 32);
        let (passed, answers) = run(format!("{line}\n").as_bytes(), 5, 32);
        assert_eq!(passed, format!("{line}\n"));
        assert!(answers.is_empty(), "{answers:?}");
        let (passed, answers) = run(format!("{line} \n").as_bytes(), 5, 32);
        assert_eq!(passed, "");
        assert_eq!(answers.len(), 1);
    }

    #[test]
    fn a_last_line_without_its_newline_is_still_a_line() {
        let (passed, answers) = run(b"{\"id\":1}", 3, 64);
        assert_eq!(passed, "{\"id\":1}\n");
        assert!(answers.is_empty());
        let (passed, answers) = run(b"{\"id\":", 3, 64);
        assert_eq!(passed, "");
        assert_eq!(answers[0]["error"]["code"], -32700);
        // An over-long last line is answered once, not twice.
        let (_, answers) = run(&[b'x'; 100], 3, 64);
        assert_eq!(answers.len(), 1);
    }

    #[test]
    fn the_real_cap_is_named_in_mib() {
        let line = String::from_utf8(too_long(MAX_LINE)).unwrap();
        assert!(line.contains("longer than 4194304 bytes (4 MiB)"), "{line}");
        assert!(
            line.starts_with("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"),
            "{line}"
        );
    }
}
