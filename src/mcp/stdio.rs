//! The stdio transport of `attest mcp`: one JSON-RPC message per line in, one per line
//! out. It differs from the SDK's own stdio transport in one way: a line that is not
//! JSON, or is longer than the limit, gets a JSON-RPC `-32700` parse error (id `null`)
//! instead of being dropped in silence, and well-formed JSON that is not a JSON-RPC
//! message gets `-32600` (with its id when it has one). Notifications the SDK does not
//! know are ignored, as the SDK does. Every outgoing line, replies and parse errors
//! alike, goes through one writer task, so lines never interleave.

use std::io;

use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::{json, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Messages buffered between the reader and the service.
const QUEUE: usize = 64;

/// JSON-RPC: invalid JSON.
const PARSE_ERROR: i64 = -32700;

/// JSON-RPC: JSON that is not a valid request.
const INVALID_REQUEST: i64 = -32600;

/// Standard input and output as an MCP transport; `max_line` bounds one message.
pub struct Stdio {
    incoming: mpsc::Receiver<RxJsonRpcMessage<RoleServer>>,
    outgoing: mpsc::Sender<String>,
}

/// The writer task; await it after the service ends so every reply is flushed.
pub type Writer = tokio::task::JoinHandle<()>;

impl Stdio {
    /// The transport over the process's standard input and output, and its writer task.
    pub fn new(max_line: usize) -> (Stdio, Writer) {
        Self::over(tokio::io::stdin(), tokio::io::stdout(), max_line)
    }

    /// The transport over `read` and `write`.
    pub fn over(
        read: impl tokio::io::AsyncRead + Send + Unpin + 'static,
        write: impl AsyncWrite + Send + Unpin + 'static,
        max_line: usize,
    ) -> (Stdio, Writer) {
        let (out_tx, out_rx) = mpsc::channel::<String>(QUEUE);
        let (in_tx, in_rx) = mpsc::channel(QUEUE);
        let writer = tokio::spawn(write_lines(write, out_rx));
        tokio::spawn(read_messages(
            BufReader::new(read),
            max_line,
            in_tx,
            out_tx.clone(),
        ));
        let t = Stdio {
            incoming: in_rx,
            outgoing: out_tx,
        };
        (t, writer)
    }
}

impl Transport<RoleServer> for Stdio {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), io::Error>> + Send + 'static {
        let out = self.outgoing.clone();
        async move {
            let line = serde_json::to_string(&item).map_err(io::Error::other)?;
            out.send(line)
                .await
                .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "standard output closed"))
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        self.incoming.recv().await
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        self.incoming.close();
        Ok(())
    }
}

/// Write each line of `lines` to `w`, flushed, until every sender is gone.
async fn write_lines(mut w: impl AsyncWrite + Unpin, mut lines: mpsc::Receiver<String>) {
    while let Some(mut line) = lines.recv().await {
        line.push('\n');
        if w.write_all(line.as_bytes()).await.is_err() || w.flush().await.is_err() {
            return;
        }
    }
}

/// One line read from the input.
enum Line {
    /// A whole line (without its newline).
    Text(Vec<u8>),
    /// A line over the limit, dropped.
    TooLong,
    /// End of input or a read error.
    End,
}

/// Read `r` line by line: messages go to `messages`, errors to `replies`.
async fn read_messages(
    mut r: impl AsyncBufRead + Unpin,
    max_line: usize,
    messages: mpsc::Sender<RxJsonRpcMessage<RoleServer>>,
    replies: mpsc::Sender<String>,
) {
    loop {
        let reply = match read_line(&mut r, max_line).await {
            Line::End => return,
            Line::TooLong => Some(error_line(
                Value::Null,
                PARSE_ERROR,
                format!("Parse error: the message is over {max_line} bytes"),
            )),
            Line::Text(bytes) => match parse(&bytes) {
                Parsed::Message(m) => {
                    if messages.send(*m).await.is_err() {
                        return;
                    }
                    None
                }
                Parsed::Skip => None,
                Parsed::Reply(line) => Some(line),
            },
        };
        if let Some(line) = reply {
            if replies.send(line).await.is_err() {
                return;
            }
        }
    }
}

/// Read one `\n`-terminated line of at most `max` bytes; a longer one is consumed to
/// its end and reported as too long, never buffered whole.
async fn read_line(r: &mut (impl AsyncBufRead + Unpin), max: usize) -> Line {
    let mut line = Vec::new();
    let mut over = false;
    loop {
        let available = match r.fill_buf().await {
            Ok(a) => a,
            Err(e) => {
                tracing::error!(target: "attest::mcp", "reading standard input: {e}");
                return Line::End;
            }
        };
        if available.is_empty() {
            // A last line without its newline is still a message.
            return match (over, line.is_empty()) {
                (true, _) => Line::TooLong,
                (false, true) => Line::End,
                (false, false) => Line::Text(line),
            };
        }
        let newline = available.iter().position(|b| *b == b'\n');
        let take = newline.map_or(available.len(), |i| i + 1);
        if !over && line.len() + take > max.saturating_add(1) {
            over = true;
            line = Vec::new();
        }
        if !over {
            line.extend_from_slice(&available[..take]);
        }
        r.consume(take);
        if newline.is_some() {
            if over {
                return Line::TooLong;
            }
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Line::Text(line);
        }
    }
}

/// What a line holds.
enum Parsed {
    /// A message for the service.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Nothing to do (a blank line, an unknown notification).
    Skip,
    /// An error reply to write.
    Reply(String),
}

/// Parse one line.
fn parse(bytes: &[u8]) -> Parsed {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Parsed::Skip;
    }
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            let msg = format!("Parse error: {e}");
            return Parsed::Reply(error_line(Value::Null, PARSE_ERROR, msg));
        }
    };
    let id = value.get("id").cloned();
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value) {
        Ok(m) => Parsed::Message(Box::new(m)),
        // A notification cannot be answered; one the SDK does not know is ignored.
        Err(_) if id.is_none() => Parsed::Skip,
        Err(e) => Parsed::Reply(error_line(
            valid_id(id),
            INVALID_REQUEST,
            format!("Invalid Request: {e}"),
        )),
    }
}

/// `id` when it is a valid JSON-RPC id (string or number), else `null`.
fn valid_id(id: Option<Value>) -> Value {
    match id {
        Some(v @ (Value::String(_) | Value::Number(_))) => v,
        _ => Value::Null,
    }
}

/// A JSON-RPC error response line.
fn error_line(id: Value, code: i64, message: String) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &str, max: usize) -> Vec<Value> {
        let (mut t, writer) = Stdio::over(
            std::io::Cursor::new(input.as_bytes().to_vec()),
            tokio::io::sink(),
            max,
        );
        let mut got = Vec::new();
        while let Some(m) = t.receive().await {
            got.push(serde_json::to_value(&m).unwrap());
        }
        drop(t);
        writer.await.unwrap();
        got
    }

    #[tokio::test]
    async fn messages_pass_and_bad_lines_do_not_stop_the_stream() {
        let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        let input = format!("{ping}\nnot json\n{}\n\n{ping}", "x".repeat(100));
        let got = lines(&input, 60).await;
        assert_eq!(got.len(), 2, "{got:?}");
    }

    #[test]
    fn parse_errors_and_invalid_requests_are_told_apart() {
        let Parsed::Reply(r) = parse(b"{oops") else {
            panic!("no reply")
        };
        let v: Value = serde_json::from_str(&r).unwrap();
        assert_eq!(v["error"]["code"], PARSE_ERROR);
        assert_eq!(v["id"], Value::Null);
        let Parsed::Reply(r) = parse(br#"{"jsonrpc":"2.0","id":7,"nothing":1}"#) else {
            panic!("no reply")
        };
        let v: Value = serde_json::from_str(&r).unwrap();
        assert_eq!(v["error"]["code"], INVALID_REQUEST);
        assert_eq!(v["id"], 7);
        // A notification is never answered.
        assert!(!matches!(
            parse(br#"{"jsonrpc":"2.0","method":"x/unknown","params":7}"#),
            Parsed::Reply(_)
        ));
    }
}
