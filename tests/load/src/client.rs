//! The JSON-RPC pipe: newline-delimited JSON-RPC 2.0 over any byte stream (a child's
//! stdin/stdout or a TCP connection), one request outstanding at a time, each round trip
//! timed from the request's write to the end of its reply's line.
//!
//! Replies can be hundreds of MB (read_graph), so a reply's envelope (id, error, isError) is
//! found by delimiting its top-level members, not by parsing it: only what a phase needs
//! is parsed.

use std::collections::HashMap;
use std::fmt;
use std::io::{self, BufRead, Write};
use std::ops::Range;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Why a request got no usable reply.
#[derive(Debug)]
pub enum PipeError {
    /// The stream ended or broke: the server closed it, died or was killed.
    Closed(Option<io::Error>),
    /// The server answered with a JSON-RPC error object (its JSON text).
    Rpc(String),
}

impl fmt::Display for PipeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PipeError::Closed(None) => write!(f, "the server closed the connection"),
            PipeError::Closed(Some(e)) => write!(f, "the connection broke: {e}"),
            PipeError::Rpc(e) => write!(f, "JSON-RPC error {e}"),
        }
    }
}

impl std::error::Error for PipeError {}

/// A reply to one request, borrowing the pipe's line buffer until the next request.
pub struct Reply<'a> {
    /// From the start of the request's write to the end of the reply's line.
    pub latency: Duration,
    /// Size of the reply's line.
    pub bytes: usize,
    /// The JSON text of the reply's `result`.
    pub result: &'a [u8],
}

/// One line read from the server, as it concerns the request waiting for its reply.
#[derive(Debug)]
enum Incoming {
    /// The awaited reply, with its `result`'s byte range in the line.
    Reply(Range<usize>),
    /// The awaited request failed: the JSON text of its `error`.
    Error(String),
    /// A request from the server: its id's JSON text and its method.
    ServerRequest(String, String),
    /// A notification (no id).
    Notification,
    /// A blank or non-JSON line, or a reply to another id.
    Other,
}

/// Sorts one line; `id` is the awaited request's.
fn classify(line: &[u8], id: u64) -> Incoming {
    let Some(fields) = members(line) else {
        return Incoming::Other;
    };
    let raw = |k: &str| fields.get(k).map(|r| &line[r.clone()]);
    let request_id = raw("id").filter(|r| *r != b"null");
    if let Some(method) = raw("method") {
        let method = serde_json::from_slice::<String>(method).unwrap_or_default();
        return match request_id {
            Some(rid) => Incoming::ServerRequest(String::from_utf8_lossy(rid).into_owned(), method),
            None => Incoming::Notification,
        };
    }
    if request_id != Some(id.to_string().as_bytes()) {
        return Incoming::Other;
    }
    if let Some(error) = raw("error") {
        return Incoming::Error(String::from_utf8_lossy(error).into_owned());
    }
    match fields.get("result") {
        Some(range) => Incoming::Reply(range.clone()),
        None => Incoming::Error("(a reply with neither result nor error)".into()),
    }
}

/// The byte ranges of the values of a JSON object's top-level members, by key; `None` if
/// `text` does not hold an object. Values are only delimited, not checked: whatever is used
/// of them is parsed later.
fn members(text: &[u8]) -> Option<HashMap<String, Range<usize>>> {
    let mut i = skip_ws(text, 0);
    if text.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(text, i + 1);
    let mut out = HashMap::new();
    if text.get(i) == Some(&b'}') {
        return Some(out);
    }
    loop {
        if text.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(text, i)?;
        let key: String = serde_json::from_slice(&text[i..key_end]).ok()?;
        i = skip_ws(text, key_end);
        if text.get(i) != Some(&b':') {
            return None;
        }
        let start = skip_ws(text, i + 1);
        let end = value_end(text, start)?;
        out.insert(key, start..end);
        i = skip_ws(text, end);
        match text.get(i)? {
            b',' => i = skip_ws(text, i + 1),
            b'}' => return Some(out),
            _ => return None,
        }
    }
}

fn skip_ws(text: &[u8], mut i: usize) -> usize {
    while matches!(text.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// Where the string starting (with its quote) at `start` ends, past its closing quote.
fn string_end(text: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    loop {
        i += text
            .get(i..)?
            .iter()
            .position(|&b| b == b'"' || b == b'\\')?;
        if text[i] == b'"' {
            return Some(i + 1);
        }
        i += 2;
    }
}

/// Where the JSON value starting at `start` ends.
fn value_end(text: &[u8], start: usize) -> Option<usize> {
    match *text.get(start)? {
        b'"' => string_end(text, start),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = start;
            while i < text.len() {
                match text[i] {
                    b'"' => {
                        i = string_end(text, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            let len = text[start..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(text.len() - start);
            (len > 0).then_some(start + len)
        }
    }
}

/// The client end of a newline-delimited JSON-RPC connection.
pub struct Pipe {
    reader: Box<dyn BufRead + Send>,
    writer: Box<dyn Write + Send>,
    line: Vec<u8>,
    out: Vec<u8>,
    next_id: u64,
    /// Notifications received (and ignored) so far.
    pub notifications: u64,
    /// Requests the server made of this client (answered) so far.
    pub server_requests: u64,
}

impl Pipe {
    /// A pipe reading replies from `reader` and writing requests to `writer`.
    pub fn new(reader: Box<dyn BufRead + Send>, writer: Box<dyn Write + Send>) -> Self {
        Pipe {
            reader,
            writer,
            line: Vec::new(),
            out: Vec::new(),
            next_id: 1,
            notifications: 0,
            server_requests: 0,
        }
    }

    /// Sends a request and waits for its reply, skipping notifications and answering the
    /// server's own requests on the way. The clock runs from the write to the reply's end.
    pub fn request(&mut self, method: &str, params: &Value) -> Result<Reply<'_>, PipeError> {
        let id = self.next_id;
        self.next_id += 1;
        self.out.clear();
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        serde_json::to_writer(&mut self.out, &request)
            .map_err(|e| PipeError::Closed(Some(e.into())))?;
        self.out.push(b'\n');
        let started = Instant::now();
        self.writer
            .write_all(&self.out)
            .and_then(|()| self.writer.flush())
            .map_err(|e| PipeError::Closed(Some(e)))?;
        loop {
            self.line.clear();
            let n = self
                .reader
                .read_until(b'\n', &mut self.line)
                .map_err(|e| PipeError::Closed(Some(e)))?;
            let latency = started.elapsed();
            if n == 0 {
                return Err(PipeError::Closed(None));
            }
            match classify(&self.line, id) {
                Incoming::Reply(range) => {
                    return Ok(Reply {
                        latency,
                        bytes: n,
                        result: &self.line[range],
                    });
                }
                Incoming::Error(e) => return Err(PipeError::Rpc(e)),
                Incoming::ServerRequest(rid, method) => {
                    self.server_requests += 1;
                    self.answer(&rid, &method)
                        .map_err(|e| PipeError::Closed(Some(e)))?;
                }
                Incoming::Notification => self.notifications += 1,
                Incoming::Other => {}
            }
        }
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str) -> io::Result<()> {
        let msg = json!({"jsonrpc": "2.0", "method": method});
        self.send(&msg.to_string())
    }

    /// Answers a request from the server: `ping` and `roots/list` as a client with nothing
    /// to offer, anything else with "method not found".
    fn answer(&mut self, id: &str, method: &str) -> io::Result<()> {
        let body = match method {
            "ping" => r#""result":{}"#.to_owned(),
            "roots/list" => r#""result":{"roots":[]}"#.to_owned(),
            _ => format!(
                r#""error":{{"code":-32601,"message":{}}}"#,
                Value::from(format!("mcpload does not support {method}"))
            ),
        };
        self.send(&format!(r#"{{"jsonrpc":"2.0","id":{id},{body}}}"#))
    }

    fn send(&mut self, text: &str) -> io::Result<()> {
        self.writer.write_all(text.as_bytes())?;
        self.writer.write_all(b"\n")?;
        self.writer.flush()
    }
}

/// The fields of a tool's result (`content`, `structuredContent`, `isError`).
pub struct ToolResult<'a> {
    text: &'a [u8],
    fields: HashMap<String, Range<usize>>,
}

impl<'a> ToolResult<'a> {
    /// Delimits a `tools/call` result's top-level fields; `None` if it is not an object.
    pub fn parse(result: &'a [u8]) -> Option<Self> {
        Some(ToolResult {
            text: result,
            fields: members(result)?,
        })
    }

    fn field(&self, key: &str) -> Option<&'a [u8]> {
        self.fields.get(key).map(|r| &self.text[r.clone()])
    }

    /// Whether the tool reported a failure (`isError: true`).
    pub fn is_error(&self) -> bool {
        self.field("isError") == Some(b"true")
    }

    /// The text parts of `content`, joined by newlines.
    pub fn text(&self) -> String {
        let Some(content) = self.field("content") else {
            return String::new();
        };
        let parts: Vec<Value> = serde_json::from_slice(content).unwrap_or_default();
        parts
            .iter()
            .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The tool's answer: `structuredContent` if present, else the JSON in the text
    /// content, else the text itself.
    pub fn payload(&self) -> Value {
        if let Some(structured) = self.field("structuredContent")
            && let Ok(v) = serde_json::from_slice(structured)
        {
            return v;
        }
        let text = self.text();
        let trimmed = text.trim_start();
        if (trimmed.starts_with('[') || trimmed.starts_with('{'))
            && let Ok(v) = serde_json::from_str(trimmed)
        {
            return v;
        }
        Value::String(text)
    }
}

/// The entities in a tool's answer: the answer itself if it is a list, else its
/// `entities` (or `nodes`, `results`, `items`) list, also under `graph`.
pub fn entities(payload: &Value) -> Option<&Vec<Value>> {
    match payload {
        Value::Array(items) => Some(items),
        Value::Object(map) => ["entities", "nodes", "results", "items"]
            .iter()
            .find_map(|k| map.get(*k).and_then(Value::as_array))
            .or_else(|| map.get("graph").and_then(entities)),
        _ => None,
    }
}

/// The relations in a tool's answer (`relations`, also under `graph`).
pub fn relations(payload: &Value) -> Option<&Vec<Value>> {
    let map = payload.as_object()?;
    map.get("relations")
        .and_then(Value::as_array)
        .or_else(|| map.get("graph").and_then(relations))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;
    use std::sync::{Arc, Mutex};

    /// A writer whose bytes the test can read afterwards.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0
                .lock()
                .map_err(|_| io::Error::other("poisoned"))?
                .extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn pipe(input: &str) -> (Pipe, Shared) {
        let out = Shared::default();
        let reader = Box::new(Cursor::new(input.as_bytes().to_vec()));
        (Pipe::new(reader, Box::new(out.clone())), out)
    }

    #[test]
    fn skips_notifications_answers_requests_and_matches_the_id() {
        let reply_line = "{\"result\":{\"content\":[],\"structuredContent\":{\"entities\":[]}},\"jsonrpc\":\"2.0\",\"id\":1}\n";
        let input = [
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n",
            "\n",
            "not json at all\n",
            "{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"ping\"}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"sampling/createMessage\"}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{\"stale\":true}}\n",
            reply_line,
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32602,\"message\":\"bad\"}}\n",
        ]
        .concat();
        let (mut p, out) = pipe(&input);
        let reply = p
            .request("tools/call", &json!({"name": "read_graph"}))
            .map(|r| (r.bytes, String::from_utf8_lossy(r.result).into_owned()));
        let (bytes, result) = reply.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            result,
            r#"{"content":[],"structuredContent":{"entities":[]}}"#
        );
        assert_eq!(bytes, reply_line.len());
        assert_eq!(p.notifications, 1);
        assert_eq!(p.server_requests, 2);
        match p.request("tools/list", &json!({})) {
            Err(PipeError::Rpc(e)) => assert!(e.contains("-32602"), "{e}"),
            _ => panic!("expected the JSON-RPC error"),
        }
        assert!(matches!(
            p.request("tools/list", &json!({})),
            Err(PipeError::Closed(None))
        ));
        let written = String::from_utf8(out.0.lock().map(|v| v.clone()).unwrap_or_default())
            .unwrap_or_default();
        let lines: Vec<Value> = written
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
            .collect();
        assert_eq!(lines.len(), 5, "{written}");
        assert_eq!(lines[0]["id"], 1);
        assert_eq!(lines[0]["method"], "tools/call");
        assert_eq!(
            lines[1],
            json!({"jsonrpc": "2.0", "id": "s1", "result": {}})
        );
        assert_eq!(lines[2]["id"], 7);
        assert_eq!(lines[2]["error"]["code"], -32601);
        assert_eq!(lines[3]["id"], 2);
    }

    #[test]
    fn delimits_top_level_members() {
        let text = br#" {"a" : [1, {"b": "x}]\"y"}], "id":12 ,"s":"q\\","n":null, "e":{}} "#;
        let m = members(text).unwrap_or_default();
        let get = |k: &str| {
            m.get(k)
                .map(|r| String::from_utf8_lossy(&text[r.clone()]).into_owned())
        };
        assert_eq!(get("a").as_deref(), Some(r#"[1, {"b": "x}]\"y"}]"#));
        assert_eq!(get("id").as_deref(), Some("12"));
        assert_eq!(get("s").as_deref(), Some(r#""q\\""#));
        assert_eq!(get("n").as_deref(), Some("null"));
        assert_eq!(get("e").as_deref(), Some("{}"));
        assert_eq!(m.len(), 5);
        assert!(members(b"[1,2]").is_none());
        assert!(members(br#"{"a":"unterminated}"#).is_none());
        assert!(members(b"{}").is_some_and(|m| m.is_empty()));
    }

    #[test]
    fn tool_results_structured_or_text() {
        let structured = br#"{"content":[{"type":"text","text":"[]"}],"structuredContent":{"entities":[{"name":"A"}],"relations":[]}}"#;
        let r = ToolResult::parse(structured).unwrap_or_else(|| panic!("not an object"));
        assert!(!r.is_error());
        let p = r.payload();
        assert_eq!(entities(&p).map(Vec::len), Some(1));
        assert_eq!(relations(&p).map(Vec::len), Some(0));

        let text = br#"{"content":[{"text":"[{\"name\":\"A\"},{\"name\":\"B\"}]","type":"text"}]}"#;
        let r = ToolResult::parse(text).unwrap_or_else(|| panic!("not an object"));
        assert_eq!(entities(&r.payload()).map(Vec::len), Some(2));
        assert_eq!(relations(&r.payload()), None);

        let failed = br#"{"content":[{"type":"text","text":"Entity X not found"}],"isError":true}"#;
        let r = ToolResult::parse(failed).unwrap_or_else(|| panic!("not an object"));
        assert!(r.is_error());
        assert_eq!(r.text(), "Entity X not found");
    }
}
