//! The network transports as a client sees them: TCP (many connections on one memory, the
//! connection limit, the token line, notifications between clients) and Streamable HTTP
//! (every refusal the endpoint owes: origin, host, token, session, protocol version). Each
//! test is named after the failure it guards against.

use crate::common::net::{self, ACCEPT, JSON, Line, Server, header};
use crate::common::{call, changes_while_warming, initialize, warm_memory};

use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Barrier};
use std::time::Duration;

use serde_json::{Value, json};

/// Starts the binary on `file` with these arguments and waits for its start-up line.
fn start(file: &Path, args: &[&str]) -> Server {
    let store = ["-f".as_ref(), file.as_os_str()];
    net::start(&store, args)
}

fn create(id: u64, name: &str) -> Value {
    call(
        id,
        "create_entities",
        json!({"entities": [{"name": name, "entityType": "t", "observations": []}]}),
    )
}

fn entity_count(line: &mut Line) -> usize {
    let reply = line.request(&call(999_999, "graph_stats", json!({})));
    let stats = &reply["result"]["structuredContent"];
    stats["entityCount"]
        .as_u64()
        .unwrap_or_else(|| panic!("graph_stats: {reply}")) as usize
}

#[test]
fn tcp_clients_writing_at_once_lose_nothing_and_the_129th_connection_is_refused() {
    const CLIENTS: usize = 128;
    const WRITES: usize = 10;
    let dir = tempfile::tempdir().unwrap();
    let server = start(&dir.path().join("m.mcpmem"), &["--transport", "tcp"]);
    // Every client connects and initializes before any writes: all 128 are held at once.
    let mut lines: Vec<Line> = (0..CLIENTS)
        .map(|_| {
            let mut line = Line::connect(&server.addr);
            assert!(line.request(&initialize(0))["result"].is_object());
            line
        })
        .collect();
    let mut extra = Line::connect(&server.addr);
    let refused = extra.next().expect("an error line before the close");
    assert_eq!(refused["error"]["code"], json!(-32000), "{refused}");
    assert!(extra.next().is_none(), "then the connection is closed");

    let start_together = Arc::new(Barrier::new(CLIENTS));
    let workers: Vec<_> = lines
        .drain(..)
        .enumerate()
        .map(|(c, mut line)| {
            let start_together = Arc::clone(&start_together);
            std::thread::spawn(move || {
                start_together.wait();
                // Pipelined: every write sent before the first reply is read.
                for i in 0..WRITES {
                    line.send(&create(i as u64 + 1, &format!("c{c}-{i}")));
                }
                for _ in 0..WRITES {
                    let reply = line.next().expect("a reply for every write");
                    assert_eq!(reply["result"]["isError"], Value::Null, "{reply}");
                }
                line
            })
        })
        .collect();
    let mut lines: Vec<Line> = workers.into_iter().map(|w| w.join().unwrap()).collect();
    for line in &mut lines {
        assert_eq!(
            entity_count(line),
            CLIENTS * WRITES,
            "every client sees every write"
        );
    }
    drop(lines);
    // A slot frees when a client leaves (once the server has seen the close).
    let served = (0..500).any(|_| {
        let mut again = Line::connect(&server.addr);
        again.send(&initialize(1));
        let served = again.next().is_some_and(|m| m["result"].is_object());
        if !served {
            std::thread::sleep(Duration::from_millis(10));
        }
        served
    });
    assert!(served, "a connection is served again after the others left");
}

/// The network transports' memory thread builds the search indexes while no client sends
/// anything; what clients change meanwhile is all searched.
#[test]
fn tcp_changes_while_the_indexes_are_built_in_idle_time_are_all_searched() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.mcpmem");
    // Loaded by one server (which built its indexes of the empty memory at once, and kept
    // them up to date), searched by the next.
    let loader = start(&file, &["--transport", "tcp"]);
    let mut client = Line::connect(&loader.addr);
    for (id, args) in (1..).zip(warm_memory()) {
        let reply = client.request(&call(id, "create_entities", args));
        assert_eq!(reply["result"]["isError"], Value::Null, "{reply}");
    }
    drop(loader);
    let server = start(&file, &["--transport", "tcp"]);
    let mut client = Line::connect(&server.addr);
    client.request(&initialize(0));
    changes_while_warming(|m| client.request(m));
}

#[test]
fn tcp_subscriber_hears_of_another_connections_change() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(&dir.path().join("m.mcpmem"), &["--transport", "tcp"]);
    let mut watcher = Line::connect(&server.addr);
    let sub = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
        "params": {"uri": "memory://knowledge-graph"}});
    assert_eq!(watcher.request(&sub)["result"], json!({}));
    let mut writer = Line::connect(&server.addr);
    let reply = writer.request(&create(1, "A"));
    assert_eq!(reply["result"]["isError"], Value::Null, "{reply}");
    let heard = watcher.next().expect("a notification");
    assert_eq!(
        heard["method"], "notifications/resources/updated",
        "{heard}"
    );
}

#[test]
fn tcp_with_a_token_refuses_a_wrong_first_line_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(
        &dir.path().join("m.mcpmem"),
        &["--transport", "tcp", "--auth-token", "s3cret"],
    );
    for first in [
        create(1, "intruder").to_string(),
        "Bearer wrong".to_string(),
    ] {
        let mut line = Line::connect(&server.addr);
        line.send_raw(&first);
        line.send(&create(2, "intruder"));
        let refused = line.next().expect("an error line");
        assert_eq!(refused["error"]["code"], json!(-32001), "{refused}");
        assert!(line.next().is_none(), "then the connection is closed");
    }
    let mut line = Line::connect(&server.addr);
    line.send_raw("Bearer s3cret");
    assert_eq!(
        entity_count(&mut line),
        0,
        "the refused writes changed nothing"
    );
}

#[test]
fn serving_a_public_address_without_a_token_is_refused_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-memory"))
        .env_remove("MCP_MEMORY_AUTH_TOKEN")
        .arg("-f")
        .arg(dir.path().join("m.mcpmem"))
        .args(["--transport", "http", "--bind", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("refusing to serve on 0.0.0.0:0 without a token"),
        "{stderr}"
    );
    let _allowed = start(
        &dir.path().join("m.mcpmem"),
        &["--transport", "tcp", "--allow-unauthenticated"],
    );
}

fn http(
    addr: &str,
    method: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Vec<(String, String)>, String) {
    net::http(addr, "/mcp", method, headers, body)
}

/// Opens a session; its id.
fn session(addr: &str, auth: &[(&str, &str)]) -> String {
    let mut headers = vec![JSON, ACCEPT];
    headers.extend_from_slice(auth);
    let (status, h, body) = http(addr, "POST", &headers, &initialize(1).to_string());
    assert_eq!(status, 200, "{body}");
    header(&h, "mcp-session-id")
        .expect("a session id")
        .to_string()
}

#[test]
fn http_refuses_foreign_origins_foreign_hosts_and_bad_sessions_and_versions() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(
        &dir.path().join("m.mcpmem"),
        &[
            "--transport",
            "http",
            "--allow-origin",
            "http://app.example",
        ],
    );
    let addr = server.addr.as_str();
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string();
    let init = initialize(1).to_string();
    let (status, _, _) = http(
        addr,
        "POST",
        &[JSON, ACCEPT, ("Origin", "http://evil.example")],
        &init,
    );
    assert_eq!(status, 403, "a foreign Origin");
    let (status, _, _) = http(
        addr,
        "POST",
        &[JSON, ACCEPT, ("Origin", "http://app.example")],
        &init,
    );
    assert_eq!(status, 200, "an allowed Origin");
    let (status, _, _) = http(
        addr,
        "POST",
        &[JSON, ACCEPT, ("Host", "evil.example:80")],
        &init,
    );
    assert_eq!(status, 403, "a rebinding Host on a loopback server");

    let id = session(addr, &[]);
    let with = |extra: (&'static str, &'static str)| {
        [JSON, ACCEPT, ("Mcp-Session-Id", id.as_str()), extra]
    };
    let (status, _, body) = http(
        addr,
        "POST",
        &with(("MCP-Protocol-Version", "2025-06-18")),
        &ping,
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["result"],
        json!({})
    );
    let (status, _, _) = http(
        addr,
        "POST",
        &with(("MCP-Protocol-Version", "1999-01-01")),
        &ping,
    );
    assert_eq!(status, 400, "an unsupported protocol version");
    let (status, _, _) = http(addr, "POST", &[JSON, ACCEPT], &ping);
    assert_eq!(status, 400, "no session");
    let (status, _, _) = http(
        addr,
        "POST",
        &[JSON, ACCEPT, ("Mcp-Session-Id", "nope")],
        &ping,
    );
    assert_eq!(status, 404, "an unknown session");
    let (status, _, _) = http(addr, "PUT", &[JSON, ACCEPT], &ping);
    assert_eq!(status, 405);
    let (status, _, _) = http(
        addr,
        "POST",
        &[("Content-Type", "text/plain"), ACCEPT],
        &init,
    );
    assert_eq!(status, 415);
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    let (status, _, _) = http(addr, "POST", &with(("X-Unused", "")), &note);
    assert_eq!(status, 202, "a notification is accepted without a body");
    let (status, _, _) = http(addr, "DELETE", &[("Mcp-Session-Id", id.as_str())], "");
    assert_eq!(status, 200);
    let (status, _, _) = http(addr, "POST", &with(("X-Unused", "")), &ping);
    assert_eq!(status, 404, "a deleted session is gone");
}

#[test]
fn http_without_the_right_token_gets_401_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, "  s3cret\n").unwrap();
    let server = start(
        &dir.path().join("m.mcpmem"),
        &[
            "--transport",
            "http",
            "--auth-token-file",
            token_file.to_str().unwrap(),
        ],
    );
    let addr = server.addr.as_str();
    let good = ("Authorization", "Bearer s3cret");
    let id = session(addr, &[good]);
    let write = create(2, "intruder").to_string();
    for bad in [
        None,
        Some("Bearer wrong"),
        Some("Bearer s3cret2"),
        Some("Basic s3cret"),
    ] {
        let mut headers = vec![JSON, ACCEPT, ("Mcp-Session-Id", id.as_str())];
        headers.extend(bad.map(|b| ("Authorization", b)));
        let (status, h, _) = http(addr, "POST", &headers, &write);
        assert_eq!(status, 401, "{bad:?}");
        assert_eq!(header(&h, "www-authenticate"), Some("Bearer"));
    }
    let (status, _, _) = http(addr, "POST", &[JSON, ACCEPT], &initialize(1).to_string());
    assert_eq!(status, 401, "initialize needs the token too");
    let stats = call(3, "graph_stats", json!({})).to_string();
    let (status, _, body) = http(
        addr,
        "POST",
        &[JSON, ACCEPT, ("Mcp-Session-Id", id.as_str()), good],
        &stats,
    );
    assert_eq!(status, 200, "{body}");
    let reply: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        reply["result"]["structuredContent"]["entityCount"],
        json!(0),
        "{reply}"
    );
}
