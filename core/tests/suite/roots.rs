//! A memory per workspace root (`Server::set_scope_roots`, `mcp::roots`): the roots asked
//! after the handshake and when they change, messages held until they are known, the first
//! `file://` root's memory served, the default one for a client without roots, and each
//! case said in `initialize`'s instructions. The memory files are the core's simulated
//! directory (`MemDisk::rescope`: a root's memory is `roots::file_name`).

use mcp_memory_core::Server;
use mcp_memory_core::filelog::FileLog;
use mcp_memory_core::roots::file_name;
use mcp_memory_core::testing::{MemDir, MemDisk};
use serde_json::{Value, json};

use crate::common::send;

const DEFAULT: &str = "memory.mcpmem";

fn scoped(dir: &MemDir) -> Server<FileLog<MemDisk>> {
    let (mut server, _) = Server::open(FileLog::new(dir.open(DEFAULT, 1))).unwrap();
    server.set_scope_roots(true);
    server
}

fn initialize(server: &mut Server<FileLog<MemDisk>>, capabilities: Value) -> String {
    let reply = send(
        server,
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": capabilities,
            "clientInfo": {"name": "t", "version": "1"}}})
        .to_string(),
    );
    reply[0]["result"]["instructions"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Ends the handshake; returns what the server sends (its `roots/list`, if it asks).
fn initialized(server: &mut Server<FileLog<MemDisk>>) -> Vec<Value> {
    send(
        server,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
}

fn create(id: u64, name: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "create_entities",
        "arguments": {"entities": [{"name": name, "entityType": "t", "observations": []}]}}})
    .to_string()
}

fn roots_answer(id: &Value, uris: &[&str]) -> String {
    let roots: Vec<Value> = uris
        .iter()
        .map(|u| json!({"uri": u, "name": "w"}))
        .collect();
    json!({"jsonrpc": "2.0", "id": id, "result": {"roots": roots}}).to_string()
}

/// The names of the entities in the memory file `name` of `dir`, as a new server reads it.
fn names_in(dir: &MemDir, name: &str) -> Vec<String> {
    let (mut other, _) = Server::open(FileLog::new(dir.open(name, 9))).unwrap();
    let graph = crate::common::call_ok(&mut other, "read_graph", json!({}));
    graph["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect()
}

fn file_of(path: &str) -> String {
    file_name(path)
}

#[test]
fn a_client_with_roots_is_served_its_first_roots_memory_and_waits_for_it() {
    let dir = MemDir::new();
    let mut server = scoped(&dir);
    let instructions = initialize(&mut server, json!({"roots": {"listChanged": true}}));
    assert!(
        instructions.contains("one memory per workspace: the one of the first root"),
        "{instructions}"
    );

    let asked = initialized(&mut server);
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0]["method"], "roots/list");
    let id = asked[0]["id"].clone();

    // A call before the answer waits for it: answered from no memory yet.
    assert!(send(&mut server, &create(1, "Ada")).is_empty());
    let out = send(
        &mut server,
        &roots_answer(
            &id,
            &["https://example.com/x", "file:///work/a", "file:///work/b"],
        ),
    );
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["id"], 1);
    assert!(out[0]["result"]["isError"].is_null(), "{out:?}");

    assert_eq!(names_in(&dir, &file_of("/work/a")), ["Ada"]);
    assert!(
        names_in(&dir, DEFAULT).is_empty(),
        "nothing in the default memory"
    );
    assert!(dir.file(&file_of("/work/b")).is_none_or(|b| b.is_empty()));

    // The roots change: asked again, and the new first root's memory is served.
    let asked = send(
        &mut server,
        r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#,
    );
    assert_eq!(asked[0]["method"], "roots/list");
    assert_ne!(asked[0]["id"], id, "a new request id");
    send(
        &mut server,
        &roots_answer(&asked[0]["id"], &["file:///work/b"]),
    );
    send(&mut server, &create(2, "Grace"));
    let read = send(
        &mut server,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_graph","arguments":{}}}"#,
    );
    let text = read[0]["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("Grace") && !text.contains("Ada"), "{text}");
    assert_eq!(names_in(&dir, &file_of("/work/b")), ["Grace"]);
}

#[test]
fn a_client_without_roots_or_with_none_is_served_the_default_memory() {
    let dir = MemDir::new();
    let mut server = scoped(&dir);
    let instructions = initialize(&mut server, json!({}));
    assert!(
        instructions.contains("declares no workspace roots"),
        "{instructions}"
    );
    let asked = initialized(&mut server);
    assert!(
        asked.is_empty(),
        "no roots/list to a client without roots: {asked:?}"
    );
    assert_eq!(send(&mut server, &create(1, "Ada"))[0]["id"], 1);
    assert_eq!(names_in(&dir, DEFAULT), ["Ada"]);

    // A client with roots that answers with an error (or lists none) keeps the default.
    let dir = MemDir::new();
    let mut server = scoped(&dir);
    initialize(&mut server, json!({"roots": {}}));
    let asked = initialized(&mut server);
    send(&mut server, &create(1, "Ada"));
    let error =
        json!({"jsonrpc": "2.0", "id": asked[0]["id"], "error": {"code": -32601, "message": "no"}});
    let out = send(&mut server, &error.to_string());
    assert_eq!(out[0]["id"], 1, "the held call is answered: {out:?}");
    assert_eq!(names_in(&dir, DEFAULT), ["Ada"]);
}

#[test]
fn a_modern_client_is_told_which_memory_it_is_served() {
    let dir = MemDir::new();
    let discover = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let note = "requests of MCP 2026-07-28, which deprecates roots, are served the memory the handshake chose";
    let scoped_reply = send(&mut scoped(&dir), discover);
    let text = scoped_reply[0]["result"]["instructions"].as_str().unwrap();
    assert!(text.contains(note), "{text}");
    let (mut plain, _) = Server::open(FileLog::new(dir.open(DEFAULT, 2))).unwrap();
    let text = send(&mut plain, discover)[0]["result"]["instructions"].clone();
    assert!(!text.as_str().unwrap().contains(note), "{text}");
}

#[test]
fn without_the_scope_nothing_changes() {
    let dir = MemDir::new();
    let (mut server, _) = Server::open(FileLog::new(dir.open(DEFAULT, 1))).unwrap();
    let instructions = initialize(&mut server, json!({"roots": {}}));
    assert!(!instructions.contains("workspace"), "{instructions}");
    let asked = initialized(&mut server);
    assert!(asked.is_empty());
}
