//! A memory per workspace root over stdio (`--scope roots`), as clients use it: each client
//! answers the server's `roots/list` with its own root, at the same time as the others;
//! nothing one writes is visible to another; a root holding `.mcp-memory/` keeps its memory
//! there, others beside the memory file (on PostgreSQL, a memory each); a client without
//! roots gets the memory file and is told so; a network transport refuses the scope.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

use crate::common::call;

/// One client's stdio session with its own server process.
struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// `initialize`'s instructions.
    instructions: String,
}

impl Session {
    /// Starts a server on `file` with `--scope roots` and opens a session: a client with
    /// these roots (`None`: no roots capability), answering `roots/list` when asked.
    fn start(file: &Path, roots: Option<&[&Path]>) -> Session {
        Session::start_on(&["-f".as_ref(), file.as_os_str()], roots)
    }

    /// [`Session::start`] on the memory these arguments name (`-f FILE`, `--store URL`).
    fn start_on(memory: &[&std::ffi::OsStr], roots: Option<&[&Path]>) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-memory"))
            .env_remove("MEMORY_FILE_PATH")
            .env_remove("MCP_MEMORY_SCOPE")
            .env_remove("MCP_MEMORY_STORE")
            .args(["--scope", "roots"])
            .args(memory)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut session = Session {
            child,
            stdin,
            stdout,
            instructions: String::new(),
        };
        let capabilities = match roots {
            Some(_) => json!({"roots": {"listChanged": true}}),
            None => json!({}),
        };
        session.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": capabilities,
            "clientInfo": {"name": "scope-test", "version": "1"}}}),
        );
        let reply = session.next();
        session.instructions = reply["result"]["instructions"]
            .as_str()
            .unwrap()
            .to_string();
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        if let Some(roots) = roots {
            let asked = session.next();
            assert_eq!(asked["method"], "roots/list", "{asked}");
            let listed: Vec<Value> = roots
                .iter()
                .map(|r| json!({"uri": uri(r), "name": "workspace"}))
                .collect();
            session
                .send(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": listed}}));
        }
        session
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn next(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }

    /// Calls a tool; its structured result (the call must succeed).
    fn call(&mut self, id: u64, tool: &str, arguments: Value) -> Value {
        self.send(&call(id, tool, arguments));
        let reply = self.next();
        assert_eq!(reply["id"], id, "{reply}");
        assert!(reply["result"]["isError"].is_null(), "{reply}");
        reply["result"]["structuredContent"].clone()
    }

    fn names(&mut self, id: u64) -> Vec<String> {
        let graph = self.call(id, "read_graph", json!({}));
        let names = graph["entities"].as_array().unwrap().iter();
        names
            .map(|e| e["name"].as_str().unwrap().to_string())
            .collect()
    }

    fn end(mut self) {
        drop(self.stdin);
        assert!(self.child.wait().unwrap().success());
    }
}

/// A local path as a `file://` URI (spaces percent-encoded).
fn uri(path: &Path) -> String {
    format!("file://{}", path.display().to_string().replace(' ', "%20"))
}

fn create(session: &mut Session, id: u64, name: &str) {
    let entity = json!({"name": name, "entityType": "thing", "observations": ["written here"]});
    session.call(id, "create_entities", json!({"entities": [entity]}));
}

/// Two sessions open at once each write an entity; each reads back only its own.
fn each_sees_only_its_own(mut in_a: Session, mut in_b: Session) {
    create(&mut in_a, 1, "Alpha");
    create(&mut in_b, 1, "Beta");
    assert_eq!(in_a.names(2), ["Alpha"]);
    assert_eq!(in_b.names(2), ["Beta"]);
    in_a.end();
    in_b.end();
}

#[test]
fn two_clients_in_two_roots_see_only_their_own_memory() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("data").join("memory.mcpmem");
    let (a, b) = (dir.path().join("work a"), dir.path().join("work-b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(b.join(".mcp-memory")).unwrap();

    // Both sessions open at once, each in its root.
    let in_a = Session::start(&file, Some(&[&a]));
    let in_b = Session::start(&file, Some(&[&b, &a]));
    assert!(
        in_a.instructions.contains("one memory per workspace"),
        "{}",
        in_a.instructions
    );
    each_sees_only_its_own(in_a, in_b);

    // Where each memory is: b's inside it, a's beside the memory file, none in the file.
    assert!(b.join(".mcp-memory").join("memory.mcpmem").exists());
    let beside: Vec<_> = std::fs::read_dir(dir.path().join("data").join("roots"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(beside.len(), 1, "{beside:?}");
    assert!(
        beside[0].starts_with("worka-") && beside[0].ends_with(".mcpmem"),
        "{beside:?}"
    );

    // A later session in a finds a's memory; a client without roots, the memory file's.
    let mut again = Session::start(&file, Some(&[&a]));
    assert_eq!(again.names(1), ["Alpha"]);
    again.end();
    let mut rootless = Session::start(&file, None);
    assert!(
        rootless
            .instructions
            .contains("declares no workspace roots"),
        "{}",
        rootless.instructions
    );
    create(&mut rootless, 1, "Gamma");
    assert_eq!(rootless.names(2), ["Gamma"]);
    rootless.end();
}

#[test]
fn on_postgresql_each_root_is_a_memory_of_its_own() {
    let Some(cluster) = crate::common::pg::Cluster::start() else {
        return;
    };
    let url = cluster.url("team");
    let store = ["--store".as_ref(), std::ffi::OsStr::new(&url)];
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("alpha"), dir.path().join("beta"));
    let in_a = Session::start_on(&store, Some(&[&a]));
    let in_b = Session::start_on(&store, Some(&[&b]));
    each_sees_only_its_own(in_a, in_b);
    let rows = cluster
        .client()
        .query("SELECT name FROM mcp_memory ORDER BY name", &[])
        .unwrap();
    let names: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert_eq!(names[0], "team");
    assert!(
        names[1].starts_with("team.alpha-") && names[2].starts_with("team.beta-"),
        "{names:?}"
    );
}

#[test]
fn a_network_transport_refuses_the_scope() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-memory"))
        .env_remove("MEMORY_FILE_PATH")
        .args([
            "--scope",
            "roots",
            "--transport",
            "http",
            "--bind",
            "127.0.0.1:0",
            "-f",
        ])
        .arg(dir.path().join("m.mcpmem"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--scope roots serves one client per process"),
        "{err}"
    );
}
