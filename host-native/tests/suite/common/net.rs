//! Network clients of the binary: a server on a free port, and a TCP client.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

/// A server on a free loopback port; killed when dropped.
pub struct Server {
    pub child: Child,
    /// `host:port` it listens on.
    pub addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the binary on `store` (`-f FILE`, `--store URL`) with these arguments, on a free
/// loopback port, and waits for its start-up line.
pub fn start(store: &[&OsStr], args: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-memory"))
        .env_remove("MEMORY_FILE_PATH")
        .env_remove("MCP_MEMORY_STORE")
        .env_remove("MCP_MEMORY_AUTH_TOKEN")
        .env("MCP_MEMORY_PROFILE", "all")
        .args(store)
        .args(["--bind", "127.0.0.1:0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let addr = line
        .rsplit_once(" on ")
        .and_then(|(_, url)| url.split_once("://"))
        .map(|(_, addr)| addr)
        .unwrap_or_else(|| panic!("no address in the start-up line {line:?}"))
        .trim()
        .trim_end_matches("/mcp")
        .to_string();
    // Keep draining stderr so the server never blocks on it.
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    Server { child, addr }
}

/// A TCP client: one line per message.
pub struct Line {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Line {
    pub fn connect(addr: &str) -> Line {
        let stream = TcpStream::connect(addr).expect("connects");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        Line {
            reader: BufReader::new(stream.try_clone().unwrap()),
            writer: stream,
        }
    }

    pub fn send_raw(&mut self, line: &str) {
        self.writer
            .write_all(format!("{line}\n").as_bytes())
            .unwrap();
    }

    pub fn send(&mut self, message: &Value) {
        self.send_raw(&message.to_string());
    }

    /// The next message, or `None` once the server closed the connection.
    pub fn next(&mut self) -> Option<Value> {
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(serde_json::from_str(&line).expect("a JSON line")),
        }
    }

    /// Sends a request and returns its reply (skipping notifications).
    pub fn request(&mut self, message: &Value) -> Value {
        self.send(message);
        loop {
            let m = self.next().expect("a reply before the connection closes");
            if m.get("id") == message.get("id") {
                return m;
            }
        }
    }
}

/// The text of a tool call's reply, and whether it is an error.
pub fn tool_text(reply: &Value) -> (String, bool) {
    let result = &reply["result"];
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    (text.to_string(), result["isError"] == true)
}

/// The names of the entities the server on `client` holds, in its order (`read_graph` as
/// request `id`).
pub fn entity_names(client: &mut Line, id: u64) -> Vec<String> {
    let read = client.request(&crate::common::call(
        id,
        "read_graph",
        serde_json::json!({}),
    ));
    (read["result"]["structuredContent"]["entities"]
        .as_array()
        .unwrap())
    .iter()
    .map(|e| e["name"].as_str().unwrap().to_string())
    .collect()
}

/// One HTTP/1.1 exchange on a fresh connection: status, headers (lowercase names), body.
pub fn http(
    addr: &str,
    path: &str,
    method: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Vec<(String, String)>, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        request.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap_or_default()
        .split(' ')
        .nth(1)
        .unwrap_or_default()
        .parse()
        .unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (status, headers, body.to_string())
}

/// The value of a response header (`name` in lowercase).
pub fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// A POST's JSON body.
pub const JSON: (&str, &str) = ("Content-Type", "application/json");
/// What a Streamable HTTP client accepts.
pub const ACCEPT: (&str, &str) = ("Accept", "application/json, text/event-stream");
