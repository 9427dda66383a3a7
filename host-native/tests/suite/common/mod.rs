//! What the host's process tests share: the JSON-RPC messages they send.

#![allow(dead_code)]

pub mod net;
pub mod pg;

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
