//! MCP Apps: the memory browser is listed to clients that declare the extension (in
//! `initialize` or a modern request's envelope), not to others, and any client can read it.

use crate::common::{MemLog, open};
use mcp_memory_core::Server;
use serde_json::{Value, json};

const BROWSER: &str = "ui://mcp-memory/browser";

fn one(m: &mut Server<MemLog>, message: Value) -> Value {
    let out = m.handle_in(0, 1_000, &message.to_string());
    assert_eq!(out.len(), 1, "{out:?}");
    serde_json::from_str(&out[0]).unwrap()
}

fn initialize(capabilities: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities,
        "clientInfo": {"name": "c", "version": "1"}}})
}

fn listed(m: &mut Server<MemLog>, meta: Option<Value>) -> Vec<String> {
    let mut params = json!({});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    let r = one(
        m,
        json!({"jsonrpc": "2.0", "id": 2, "method": "resources/list", "params": params}),
    );
    r["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn listed_only_to_clients_that_declare_the_extension() {
    let ui = json!({"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}});
    for (capabilities, shown) in [
        (json!({}), false),
        (json!({"extensions": ui}), true),
        (json!({"experimental": ui}), true),
        (json!({"extensions": {"other": {}}}), false),
    ] {
        let mut m = open(MemLog::new());
        one(&mut m, initialize(capabilities.clone()));
        let uris = listed(&mut m, None);
        assert_eq!(uris.contains(&BROWSER.to_string()), shown, "{capabilities}");
        assert_eq!(uris[0], "memory://knowledge-graph");
    }
    // A modern request declares it in its envelope, whatever the session said.
    let mut m = open(MemLog::new());
    one(&mut m, initialize(json!({})));
    let envelope = |caps: Value| {
        json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": caps})
    };
    assert!(
        listed(&mut m, Some(envelope(json!({"extensions": ui})))).contains(&BROWSER.to_string())
    );
    assert!(!listed(&mut m, Some(envelope(json!({})))).contains(&BROWSER.to_string()));
}

#[test]
fn any_client_reads_the_page() {
    let mut m = open(MemLog::new());
    let r = one(
        &mut m,
        json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": BROWSER}}),
    );
    let content = &r["result"]["contents"][0];
    assert_eq!(content["uri"], BROWSER);
    assert_eq!(content["mimeType"], "text/html;profile=mcp-app");
    let html = content["text"].as_str().unwrap();
    assert!(
        html.starts_with("<!doctype html>") && html.contains("ui/initialize"),
        "{}",
        &html[..200]
    );
}
