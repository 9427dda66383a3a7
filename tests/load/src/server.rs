//! A server under test: its process, its connection (stdio, or TCP with `--tcp`), a
//! watchdog that kills it when a call outlasts the timeout, its memory, and its shutdown.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, ChildStderr, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};

use crate::client::{Pipe, PipeError, Reply, ToolResult};
use crate::procfs::{self, Rss};

/// The MCP protocol version this client speaks.
pub const PROTOCOL_VERSION: &str = "2025-06-18";
/// The server's stderr goes to this file in its directory.
pub const STDERR_LOG: &str = "stderr.log";
/// The nine tools of the reference memory server, which the workload uses.
pub const REQUIRED_TOOLS: [&str; 9] = [
    "create_entities",
    "create_relations",
    "add_observations",
    "delete_entities",
    "delete_observations",
    "delete_relations",
    "read_graph",
    "search_nodes",
    "open_nodes",
];
/// How long a server may take to exit once its input is closed.
const EXIT_GRACE: Duration = Duration::from_secs(20);

/// How to start one server.
#[derive(Clone, Debug)]
pub struct ServerSpec {
    /// Its name in the report.
    pub label: String,
    /// Its command line; `{file}` and `{dir}` are replaced.
    pub command: String,
    /// The memory file's name in the server's directory: what `{file}` ends with.
    pub file_name: String,
    /// Whether to serve over TCP (`--transport tcp --bind 127.0.0.1:0`) instead of stdio.
    pub tcp: bool,
}

impl ServerSpec {
    /// The command's words with `{file}` and `{dir}` replaced, TCP options appended. A
    /// relative program path (one with a `/`) is made absolute: the server runs in `dir`.
    pub fn argv(&self, dir: &Path) -> Result<Vec<String>> {
        let dir_text = dir.to_string_lossy();
        let file = dir.join(&self.file_name);
        let file_text = file.to_string_lossy();
        let mut argv: Vec<String> = split_command(&self.command)?
            .iter()
            .map(|w| w.replace("{file}", &file_text).replace("{dir}", &dir_text))
            .collect();
        if argv[0].contains('/') {
            argv[0] = std::path::absolute(&argv[0])?
                .to_string_lossy()
                .into_owned();
        }
        if self.tcp {
            argv.extend(["--transport", "tcp", "--bind", "127.0.0.1:0"].map(String::from));
        }
        Ok(argv)
    }
}

/// Splits a command line into words as a POSIX shell would (quotes and backslashes).
pub fn split_command(command: &str) -> Result<Vec<String>> {
    let words = shlex::split(command)
        .with_context(|| format!("unbalanced quotes in the command {command:?}"))?;
    if words.is_empty() {
        bail!("empty server command");
    }
    Ok(words)
}

/// The address a server announces on a stderr line: a `tcp://` URL, else any word that
/// reads as a socket address; port 0 (the request, not the bound port) does not count.
pub fn listening_address(line: &str) -> Option<SocketAddr> {
    let words = line.split_whitespace();
    let trim = |w: &str| -> Option<SocketAddr> {
        let w = w.trim_matches(|c: char| !(c.is_ascii_alphanumeric() || "[]:.".contains(c)));
        let addr: SocketAddr = w.trim_end_matches(['.', ':']).parse().ok()?;
        (addr.port() != 0).then_some(addr)
    };
    words
        .clone()
        .find_map(|w| w.split_once("tcp://").and_then(|(_, a)| trim(a)))
        .or_else(|| words.into_iter().find_map(trim))
}

/// The deadline shared with the watchdog thread.
struct Watch {
    epoch: Instant,
    /// Milliseconds since `epoch` after which the server is killed; 0 when no call runs.
    deadline_ms: AtomicU64,
    fired: AtomicBool,
    stop: AtomicBool,
}

impl Watch {
    fn arm(&self, timeout: Duration) {
        let deadline = self.epoch.elapsed() + timeout;
        let ms = u64::try_from(deadline.as_millis()).unwrap_or(u64::MAX);
        self.deadline_ms.store(ms.max(1), Ordering::Release);
    }

    fn disarm(&self) {
        self.deadline_ms.store(0, Ordering::Release);
    }
}

/// Sends a signal to a process that has not been reaped yet (so its pid is still its own).
fn signal(pid: u32, sig: libc::c_int) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: kill(2) takes plain integers and touches no memory of ours.
        unsafe {
            libc::kill(pid, sig);
        }
    }
}

/// Kills the server when a call is still running at its deadline.
fn watchdog(watch: Arc<Watch>, pid: u32) {
    loop {
        thread::park_timeout(Duration::from_millis(100));
        if watch.stop.load(Ordering::Acquire) {
            return;
        }
        let deadline = watch.deadline_ms.load(Ordering::Acquire);
        let now = u64::try_from(watch.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        if deadline != 0 && now >= deadline {
            watch.fired.store(true, Ordering::Release);
            signal(pid, libc::SIGKILL);
            return;
        }
    }
}

/// Copies the server's stderr to its log file and reports the first listening address.
fn copy_stderr(stderr: ChildStderr, mut log: File, address: Sender<SocketAddr>) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    let mut address = Some(address);
    while matches!(reader.read_until(b'\n', &mut line), Ok(n) if n > 0) {
        // The log is informative only: losing a line of it must not stop the copy.
        let _ = log.write_all(&line);
        if address.is_some()
            && let Some(found) = listening_address(&String::from_utf8_lossy(&line))
            && let Some(tx) = address.take()
        {
            let _ = tx.send(found);
        }
        line.clear();
    }
}

/// Waits up to `limit` for the child to exit.
fn wait_for(child: &mut Child, limit: Duration) -> Result<Option<ExitStatus>> {
    let until = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if Instant::now() >= until {
            return Ok(None);
        }
        thread::sleep(Duration::from_millis(2));
    }
}

/// How a server stopped.
#[derive(Clone, Debug)]
pub struct Shutdown {
    /// `eof` (it exited when its input closed), `sigterm` or `sigkill`.
    pub how: &'static str,
    /// From closing its input to its exit.
    pub seconds: f64,
    /// Its exit status.
    pub status: String,
}

impl Shutdown {
    /// All fields, for the JSON report.
    pub fn to_json(&self) -> Value {
        json!({"how": self.how, "seconds": self.seconds, "status": self.status})
    }
}

/// A reply to a `tools/call` whose result was read.
pub struct Call<'a> {
    /// Round trip of the call.
    pub latency: Duration,
    /// Size of the reply's line.
    pub bytes: usize,
    /// The tool's result.
    pub result: ToolResult<'a>,
}

/// A running server and the connection to it.
pub struct Server {
    child: Child,
    pipe: Option<Pipe>,
    watch: Arc<Watch>,
    watchdog: Option<JoinHandle<()>>,
    stderr_copy: Option<JoinHandle<()>>,
    timeout: Duration,
    tcp: bool,
    exited: bool,
    /// When the process was spawned.
    pub spawned: Instant,
}

impl Server {
    /// Spawns the server in `dir` (its cwd) and connects to it; no MCP message yet.
    pub fn start(spec: &ServerSpec, dir: &Path, timeout: Duration) -> Result<Server> {
        let argv = spec.argv(dir)?;
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(STDERR_LOG))
            .with_context(|| format!("cannot open {}", dir.join(STDERR_LOG).display()))?;
        let mut command = Command::new(&argv[0]);
        command.args(&argv[1..]).current_dir(dir);
        if spec.tcp {
            command
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped());
        } else {
            command
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(log.try_clone()?);
        }
        let spawned = Instant::now();
        let child = command
            .spawn()
            .with_context(|| format!("cannot start {argv:?}"))?;
        let watch = Arc::new(Watch {
            epoch: Instant::now(),
            deadline_ms: AtomicU64::new(0),
            fired: AtomicBool::new(false),
            stop: AtomicBool::new(false),
        });
        let pid = child.id();
        let dog = Arc::clone(&watch);
        let mut server = Server {
            child,
            pipe: None,
            watch,
            watchdog: Some(thread::spawn(move || watchdog(dog, pid))),
            stderr_copy: None,
            timeout,
            tcp: spec.tcp,
            exited: false,
            spawned,
        };
        server.connect(log)?;
        Ok(server)
    }

    fn connect(&mut self, log: File) -> Result<()> {
        if !self.tcp {
            let stdin = self.child.stdin.take().context("no stdin pipe")?;
            let stdout = self.child.stdout.take().context("no stdout pipe")?;
            self.pipe = Some(Pipe::new(
                Box::new(BufReader::with_capacity(1 << 20, stdout)),
                Box::new(BufWriter::new(stdin)),
            ));
            return Ok(());
        }
        let stderr = self.child.stderr.take().context("no stderr pipe")?;
        let (tx, rx) = mpsc::channel();
        self.stderr_copy = Some(thread::spawn(move || copy_stderr(stderr, log, tx)));
        let addr = match rx.recv_timeout(self.timeout) {
            Ok(addr) => addr,
            Err(RecvTimeoutError::Timeout) => bail!(
                "the server printed no listening address on stderr within {:?}",
                self.timeout
            ),
            Err(RecvTimeoutError::Disconnected) => {
                let status = wait_for(&mut self.child, Duration::from_secs(2))?;
                bail!(
                    "the server closed its stderr without printing a listening address ({status:?})"
                )
            }
        };
        let stream =
            TcpStream::connect(addr).with_context(|| format!("cannot connect to {addr}"))?;
        stream.set_nodelay(true)?;
        self.pipe = Some(Pipe::new(
            Box::new(BufReader::with_capacity(1 << 20, stream.try_clone()?)),
            Box::new(BufWriter::new(stream)),
        ));
        Ok(())
    }

    /// One JSON-RPC round trip, under the call timeout.
    pub fn request(&mut self, method: &str, params: &Value) -> Result<Reply<'_>> {
        let pipe = self.pipe.as_mut().context("not connected")?;
        self.watch.arm(self.timeout);
        let reply = pipe.request(method, params);
        self.watch.disarm();
        reply.map_err(|e| explain(&self.watch, &mut self.child, self.timeout, method, e))
    }

    /// Calls a tool; a result with `isError` is returned, not failed.
    pub fn call_raw(&mut self, tool: &str, arguments: Value) -> Result<Call<'_>> {
        let params = json!({"name": tool, "arguments": arguments});
        let reply = self
            .request("tools/call", &params)
            .with_context(|| format!("tool {tool}"))?;
        let result = ToolResult::parse(reply.result)
            .with_context(|| format!("tool {tool}: the result is not a JSON object"))?;
        Ok(Call {
            latency: reply.latency,
            bytes: reply.bytes,
            result,
        })
    }

    /// Calls a tool; `isError` fails with the tool's text.
    pub fn call(&mut self, tool: &str, arguments: Value) -> Result<Call<'_>> {
        let call = self.call_raw(tool, arguments)?;
        if call.result.is_error() {
            let text: String = call.result.text().chars().take(500).collect();
            bail!("tool {tool} returned isError: {text}");
        }
        Ok(call)
    }

    /// `initialize` then `notifications/initialized`; returns the server's `serverInfo`.
    pub fn initialize(&mut self) -> Result<Value> {
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "mcpload", "version": env!("CARGO_PKG_VERSION")},
        });
        let reply = self.request("initialize", &params)?;
        let result: Value =
            serde_json::from_slice(reply.result).context("unreadable initialize result")?;
        let info = result.get("serverInfo").cloned().unwrap_or(Value::Null);
        self.pipe
            .as_mut()
            .context("not connected")?
            .notify("notifications/initialized")
            .context("cannot send notifications/initialized")?;
        Ok(info)
    }

    /// The names of the server's tools (all pages of `tools/list`).
    pub fn list_tools(&mut self) -> Result<Vec<String>> {
        let mut names = Vec::new();
        let mut cursor = Value::Null;
        for _ in 0..100 {
            let params = if cursor.is_null() {
                json!({})
            } else {
                json!({ "cursor": cursor })
            };
            let reply = self.request("tools/list", &params)?;
            let page: Value =
                serde_json::from_slice(reply.result).context("unreadable tools/list result")?;
            let tools = page.get("tools").and_then(Value::as_array);
            names.extend(
                tools
                    .into_iter()
                    .flatten()
                    .filter_map(|t| t.get("name").and_then(Value::as_str).map(String::from)),
            );
            cursor = page.get("nextCursor").cloned().unwrap_or(Value::Null);
            if cursor.is_null() {
                break;
            }
        }
        Ok(names)
    }

    /// Memory of the server's process tree now.
    pub fn rss(&self) -> Rss {
        procfs::rss_tree(self.child.id())
    }

    /// Notifications and server requests seen so far.
    pub fn traffic(&self) -> (u64, u64) {
        self.pipe
            .as_ref()
            .map_or((0, 0), |p| (p.notifications, p.server_requests))
    }

    /// Closes the connection (stdin or socket) and waits up to 20 s for the server to exit;
    /// a TCP server, which outlives its connections, also gets SIGTERM at once. A server
    /// still running then gets SIGTERM, then SIGKILL.
    pub fn shutdown(mut self) -> Result<Shutdown> {
        self.stop_watchdog();
        let started = Instant::now();
        drop(self.pipe.take());
        let pid = self.child.id();
        let mut how = "eof";
        if self.tcp {
            signal(pid, libc::SIGTERM);
            how = "sigterm";
        }
        let mut status = wait_for(&mut self.child, EXIT_GRACE)?;
        if status.is_none() && !self.tcp {
            signal(pid, libc::SIGTERM);
            how = "sigterm";
            status = wait_for(&mut self.child, Duration::from_secs(5))?;
        }
        let status = match status {
            Some(s) => s,
            None => {
                how = "sigkill";
                self.child.kill()?;
                self.child.wait()?
            }
        };
        self.exited = true;
        if let Some(copy) = self.stderr_copy.take() {
            let _ = copy.join();
        }
        Ok(Shutdown {
            how,
            seconds: started.elapsed().as_secs_f64(),
            status: status.to_string(),
        })
    }

    fn stop_watchdog(&mut self) {
        self.watch.stop.store(true, Ordering::Release);
        if let Some(dog) = self.watchdog.take() {
            dog.thread().unpark();
            let _ = dog.join();
        }
    }
}

impl Drop for Server {
    /// A server left running (after an error) is killed and reaped.
    fn drop(&mut self) {
        self.stop_watchdog();
        if !self.exited {
            drop(self.pipe.take());
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        if let Some(copy) = self.stderr_copy.take() {
            let _ = copy.join();
        }
    }
}

/// Turns a failed round trip into a message saying what became of the server.
fn explain(
    watch: &Watch,
    child: &mut Child,
    timeout: Duration,
    method: &str,
    error: PipeError,
) -> anyhow::Error {
    match error {
        PipeError::Rpc(e) => anyhow!("{method}: JSON-RPC error {e}"),
        PipeError::Closed(_) if watch.fired.load(Ordering::Acquire) => {
            anyhow!("{method}: no reply within {timeout:?}; the server was killed")
        }
        closed => match wait_for(child, Duration::from_secs(2)) {
            Ok(Some(status)) => anyhow!("{method}: {closed}; the server exited ({status})"),
            _ => anyhow!("{method}: {closed}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_commands_like_a_shell() -> Result<()> {
        assert_eq!(
            split_command(r#"target/release/mcp-memory -f {file} --actor "load test" 'a b'\ c"#)?,
            [
                "target/release/mcp-memory",
                "-f",
                "{file}",
                "--actor",
                "load test",
                "a b c"
            ]
        );
        assert!(split_command("node 'unterminated").is_err());
        assert!(split_command("   ").is_err());
        let spec = ServerSpec {
            label: "us".into(),
            command: "srv -f {file} --dir={dir}".into(),
            file_name: "memory.mcpmem".into(),
            tcp: true,
        };
        assert_eq!(
            spec.argv(Path::new("/tmp/x"))?,
            [
                "srv",
                "-f",
                "/tmp/x/memory.mcpmem",
                "--dir=/tmp/x",
                "--transport",
                "tcp",
                "--bind",
                "127.0.0.1:0"
            ]
        );
        Ok(())
    }

    #[test]
    fn finds_the_listening_address() {
        let ours = "mcp-memory 0.1.0: serving /tmp/m.mcpmem on tcp://127.0.0.1:40123";
        assert_eq!(
            listening_address(ours),
            "127.0.0.1:40123".parse::<SocketAddr>().ok()
        );
        assert_eq!(
            listening_address("INFO listening on 127.0.0.1:8080."),
            "127.0.0.1:8080".parse::<SocketAddr>().ok()
        );
        assert_eq!(listening_address("Starting MCP Memory Server 3.0.1"), None);
        assert_eq!(
            listening_address("Running in TCP mode on 127.0.0.1:0"),
            None
        );
    }
}
