//! Runs the host-neutral scenarios of `tests/scenarios/*.json` (format: its README.md)
//! against the `mcp-memory` binary over stdio, with `-f <tempdir>/memory.jsonl`.
//!
//! One test runs every file and reports every failing step (file, step index, expected vs
//! got) instead of stopping at the first.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use serde_json::{Value, json};

/// Matches any value in an expectation.
const ANY: &str = "$any";

/// Guard against a hung server; no test depends on replies being fast.
const HANG_GUARD: Duration = Duration::from_secs(60);

fn scenario_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/scenarios")
}

/// The first place where `got` does not match `expected`, as a JSON-pointer-like path.
fn mismatch(expected: &Value, got: &Value, path: &str) -> Option<String> {
    match (expected, got) {
        (Value::String(s), _) if s == ANY => None,
        (Value::Object(e), Value::Object(g)) => {
            for (k, ev) in e {
                match g.get(k) {
                    Some(gv) => {
                        if let Some(p) = mismatch(ev, gv, &format!("{path}/{k}")) {
                            return Some(p);
                        }
                    }
                    None => return Some(format!("{path}/{k} (missing)")),
                }
            }
            g.keys()
                .find(|k| !e.contains_key(*k))
                .map(|k| format!("{path}/{k} (unexpected)"))
        }
        (Value::Array(e), Value::Array(g)) => {
            for (i, (ev, gv)) in e.iter().zip(g).enumerate() {
                if let Some(p) = mismatch(ev, gv, &format!("{path}/{i}")) {
                    return Some(p);
                }
            }
            (e.len() != g.len())
                .then(|| format!("{path} (length {} expected, {} got)", e.len(), g.len()))
        }
        (Value::Number(e), Value::Number(g)) => {
            (e.as_f64() != g.as_f64()).then(|| path.to_string())
        }
        _ => (expected != got).then(|| path.to_string()),
    }
}

#[test]
fn matcher_accepts_any_and_finds_the_first_difference() {
    let want = json!([{"a": "$any", "b": [1, 2]}]);
    assert_eq!(
        mismatch(&want, &json!([{"a": {"x": 1}, "b": [1, 2]}]), ""),
        None
    );
    assert_eq!(
        mismatch(&want, &json!([{"a": 1, "b": [1, 3]}]), "").as_deref(),
        Some("/0/b/1")
    );
    assert_eq!(
        mismatch(&want, &json!([{"b": [1, 2]}]), "").as_deref(),
        Some("/0/a (missing)")
    );
    assert_eq!(
        mismatch(&want, &json!([{"a": 1, "b": [1, 2], "c": 0}]), "").as_deref(),
        Some("/0/c (unexpected)")
    );
    assert!(mismatch(&want, &json!([]), "").is_some());
    assert!(mismatch(&json!("$any"), &json!(null), "").is_none());
    assert!(mismatch(&json!("x"), &json!("$any"), "").is_some());
}

/// A running server: stdin, stdout lines via a reader thread, stderr collected.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Option<JoinHandle<String>>,
}

impl Server {
    fn start(file: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-memory"))
            .arg("-f")
            .arg(file)
            .env_remove("MEMORY_FILE_PATH")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the mcp-memory binary starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut stderr = child.stderr.take().unwrap();
        let stderr = thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        Server {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr: Some(stderr),
        }
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush())
            .map_err(|e| format!("cannot write to the server: {e}"))
    }

    fn recv(&mut self) -> Result<Value, String> {
        match self.lines.recv_timeout(HANG_GUARD) {
            Ok(line) => serde_json::from_str(&line)
                .map_err(|e| format!("stdout line is not JSON ({e}): {line}")),
            Err(RecvTimeoutError::Timeout) => Err(format!(
                "no message within {} s (server hung?)",
                HANG_GUARD.as_secs()
            )),
            Err(RecvTimeoutError::Disconnected) => Err("the server closed stdout".into()),
        }
    }

    /// Sends the sync ping and returns every message that arrives before its reply.
    fn sync(&mut self, index: usize) -> Result<Vec<Value>, String> {
        let id = format!("scenario-sync-{index}");
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string())?;
        let mut extra = Vec::new();
        loop {
            let msg = self.recv()?;
            if msg.get("id") == Some(&Value::String(id.clone())) && msg.get("method").is_none() {
                return Ok(extra);
            }
            extra.push(msg);
        }
    }

    /// Closes stdin and waits: the server must exit 0. Returns its stderr.
    fn stop(mut self) -> Result<String, String> {
        drop(self.stdin.take());
        let status = self.child.wait().map_err(|e| e.to_string())?;
        let stderr = self.stderr.take().unwrap().join().unwrap_or_default();
        if status.success() {
            Ok(stderr)
        } else {
            Err(format!("server exited with {status}; stderr:\n{stderr}"))
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.stdin.is_some() {
            drop(self.stdin.take());
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// Runs one scenario; returns a report of each failing step.
fn run(path: &Path) -> Vec<String> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let scenario: Value = match std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(v) => v,
        Err(e) => return vec![format!("{name}: cannot read the scenario: {e}")],
    };
    let Some(steps) = scenario.get("steps").and_then(Value::as_array) else {
        return vec![format!("{name}: no `steps` array")];
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.jsonl");
    if let Some(start) = scenario.get("file").filter(|f| !f.is_null()) {
        let Some(text) = start.get("jsonl").and_then(Value::as_str) else {
            return vec![format!(
                "{name}: `file` must be null or {{\"jsonl\": string}}"
            )];
        };
        std::fs::write(&file, text).unwrap();
    }
    let mut failures = Vec::new();
    let mut server = Server::start(&file);
    for (index, step) in steps.iter().enumerate() {
        let fail = |why: String| format!("{name} step {index}: {why}");
        if step.get("restart") == Some(&Value::Bool(true)) {
            if let Err(e) = server.stop() {
                failures.push(fail(format!("at restart: {e}")));
            }
            server = Server::start(&file);
            continue;
        }
        let line = match (step.get("send"), step.get("send_raw")) {
            (Some(msg), None) => msg.to_string(),
            (None, Some(Value::String(raw))) => raw.clone(),
            _ => {
                failures.push(fail(
                    "needs exactly one of `send`, `send_raw` (a string), `restart`".into(),
                ));
                continue;
            }
        };
        let Some(expected) = step.get("expect").and_then(Value::as_array) else {
            failures.push(fail("`expect` must be an array of messages".into()));
            continue;
        };
        let outcome = server.send(&line).and_then(|()| {
            let mut got = Vec::new();
            for _ in expected {
                got.push(server.recv()?);
            }
            got.extend(server.sync(index)?);
            Ok(got)
        });
        match outcome {
            Ok(got) => {
                let (want, got) = (Value::Array(expected.clone()), Value::Array(got));
                if let Some(at) = mismatch(&want, &got, "") {
                    let mut report = fail(format!("replies differ at {at}\n"));
                    let _ = write!(
                        report,
                        "  sent:     {line}\n  expected: {}\n  got:      {}",
                        pretty(&want).replace('\n', "\n  "),
                        pretty(&got).replace('\n', "\n  ")
                    );
                    failures.push(report);
                }
            }
            Err(e) => {
                // The server is unusable: report, with its stderr, and stop this scenario.
                drop(server.stdin.take());
                let _ = server.child.kill();
                let _ = server.child.wait();
                let stderr = server.stderr.take().unwrap().join().unwrap_or_default();
                failures.push(fail(format!("{e}\n  sent: {line}\n  stderr:\n{stderr}")));
                return failures;
            }
        }
    }
    if let Err(e) = server.stop() {
        failures.push(format!("{name} at the end: {e}"));
    }
    failures
}

#[test]
fn every_scenario_passes() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(scenario_dir())
        .expect("tests/scenarios exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "scenario files are missing: {files:?}");
    let failures: Vec<String> = files.iter().flat_map(|f| run(f)).collect();
    assert!(
        failures.is_empty(),
        "{} failing step(s) in {} scenario files:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}
