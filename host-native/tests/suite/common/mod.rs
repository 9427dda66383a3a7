//! What the host's process tests share: the JSON-RPC messages they send.

#![allow(dead_code)]

pub mod net;
pub mod pg;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// An `initialize` request.
pub fn initialize(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "host-test", "version": "1"}}})
}

/// A request.
pub fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A `tools/call` request.
pub fn call(id: u64, tool: &str, arguments: Value) -> Value {
    request(
        id,
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
    )
}

/// Serves `file` over stdio under `profile` for these messages (then end of input), which
/// must end well; returns every message it sent (parsed) and its stderr.
pub fn serve_as(profile: &str, file: &Path, messages: &[Value]) -> (Vec<Value>, String) {
    let input: String = messages.iter().map(|m| format!("{m}\n")).collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-memory"))
        .env_remove("MEMORY_FILE_PATH")
        .args(["--profile", profile, "-f"])
        .arg(file)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().expect("a pipe");
    stdin
        .write_all(input.as_bytes())
        .expect("the input is read");
    drop(stdin);
    let out = child.wait_with_output().expect("the binary ends");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let replies = String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    (replies, String::from_utf8(out.stderr).expect("UTF-8"))
}

/// Entities a memory must hold for the idle build of its indexes to take a few tenths of a
/// second ([`changes_while_warming`]).
pub const WARM_ENTITIES: usize = 20_000;

/// `create_entities` arguments for [`WARM_ENTITIES`] entities `e0`, `e1`, …, in calls of a
/// thousand (the most one takes).
pub fn warm_memory() -> Vec<Value> {
    let entity = |i| json!({"name": format!("e{i}"), "entityType": "thing", "observations": [format!("about item {i}")]});
    (0..WARM_ENTITIES / 1000)
        .map(|call| json!({"entities": (call * 1000..(call + 1) * 1000).map(entity).collect::<Vec<_>>()}))
        .collect()
}

/// Changes a memory of [`warm_memory`] while its server builds its search indexes in idle
/// time (each change comes a little more than the 100 ms of quiet that starts the build
/// after the last, so builds under way meet changes to entities they hold and to ones they
/// do not yet), then searches: every search must see every change, as a server that built its indexes at
/// once would. `request` sends a message on an initialized session and returns its reply.
pub fn changes_while_warming(mut request: impl FnMut(&Value) -> Value) {
    let mut id = 100;
    let mut call_ok = |tool: &str, args: Value| {
        id += 1;
        let reply = request(&call(id, tool, args));
        assert!(reply["result"].get("isError").is_none(), "{tool}: {reply}");
        reply["result"]["structuredContent"].clone()
    };
    let mut marked = Vec::new();
    for round in 0..8 {
        // Quiet for 100 ms (the build starts), then a few milliseconds more each round: the
        // build goes on a slice or two at a time between changes.
        std::thread::sleep(std::time::Duration::from_millis(104 + 2 * round as u64));
        let (old, gone) = (round * 2_500, round * 2_500 + 1);
        let marker = format!("marker{round}");
        call_ok(
            "add_observations",
            json!({"observations": [{"entityName": format!("e{old}"), "contents": [&marker]}]}),
        );
        call_ok(
            "delete_entities",
            json!({"entityNames": [format!("e{gone}")]}),
        );
        call_ok(
            "create_entities",
            json!({"entities": [{"name": format!("new{round}"), "entityType": "thing", "observations": [&marker]}]}),
        );
        marked.extend([format!("e{old}"), format!("new{round}")]);
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let names = |found: &Value, key: &str| -> Vec<String> {
        let mut names: Vec<String> = (found[key].as_array().expect(key).iter())
            .map(|e| e["name"].as_str().expect("a name").to_string())
            .collect();
        names.sort();
        names
    };
    marked.sort();
    let found = call_ok("search_nodes", json!({"query": "marker"}));
    assert_eq!(names(&found, "entities"), marked, "search_nodes (trigrams)");
    for round in 0..8 {
        let marker = format!("marker{round}");
        let found = call_ok("search", json!({"query": marker, "mode": "lexical"}));
        let expected = [format!("e{}", round * 2_500), format!("new{round}")];
        assert_eq!(names(&found, "hits"), expected, "search {marker}");
        let gone = format!("e{}", round * 2_500 + 1);
        let found = call_ok(
            "search",
            json!({"query": format!("about item {}", round * 2_500 + 1), "limit": 50}),
        );
        assert!(!names(&found, "hits").contains(&gone), "{gone} was deleted");
    }
}
