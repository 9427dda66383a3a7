//! The two protocol eras: modern (2026-07-28) requests are checked and answered on their
//! own, interleaved with a handshake-era session on one connection, whose replies stay as
//! they were.

use crate::common::{MemLog, initialized_at, open};
use mcp_memory_core::Server;
use mcp_memory_core::mcp::{self, Headers, Kind};
use serde_json::{Value, json};

const V: &str = "2026-07-28";

fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "py-sdk", "version": "2.3.0"},
    })
}

/// A modern request: `params` with the envelope in `_meta`.
fn modern(id: u64, method: &str, params: Value) -> String {
    let mut params = params;
    params["_meta"] = envelope();
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn send(m: &mut Server<MemLog>, session: u32, message: &str) -> Vec<Value> {
    m.handle_in(session, 1_000, message)
        .iter()
        .map(|s| serde_json::from_str(s).expect("a reply is JSON"))
        .collect()
}

fn one(m: &mut Server<MemLog>, message: &str) -> Value {
    let mut out = send(m, 0, message);
    assert_eq!(out.len(), 1, "{out:?}");
    out.remove(0)
}

#[test]
fn discover_answers_before_and_without_initialize() {
    let mut m = open(MemLog::new());
    let r = one(&mut m, &modern(1, "server/discover", json!({})));
    let result = &r["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["supportedVersions"][0], V);
    assert!(
        result["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!("2025-11-25"))
    );
    assert_eq!(result["capabilities"]["tools"]["listChanged"], true);
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcp-memory"
    );
    assert_eq!(result["ttlMs"], 60_000);
    assert_eq!(result["cacheScope"], "private");
    assert!(
        result["instructions"]
            .as_str()
            .unwrap()
            .contains("search_nodes")
    );
}

#[test]
fn the_envelope_is_checked_before_the_method() {
    let mut m = open(MemLog::new());
    // server/discover without any _meta: the required keys are named.
    let r = one(
        &mut m,
        r#"{"jsonrpc":"2.0","id":1,"method":"server/discover"}"#,
    );
    assert_eq!(r["error"]["code"], -32602);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("clientCapabilities")
    );
    // The version key alone makes a request modern; the missing capabilities are named.
    let half = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
        "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": V}}});
    let r = one(&mut m, &half.to_string());
    assert_eq!(r["error"]["code"], -32602);
    assert_eq!(
        r["error"]["message"],
        "params._meta is missing the required key(s): io.modelcontextprotocol/clientCapabilities"
    );
    // An unsupported version: -32022 naming every version served.
    let mut old =
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": envelope()}});
    old["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2027-01-01");
    let r = one(&mut m, &old.to_string());
    assert_eq!(r["error"]["code"], -32022);
    assert_eq!(r["error"]["data"]["requested"], "2027-01-01");
    assert_eq!(r["error"]["data"]["supported"][0], V);
    assert_eq!(r["error"]["data"]["supported"][1], "2025-11-25");
}

#[test]
fn modern_results_say_their_type_and_lists_how_long_to_cache() {
    let mut m = open(MemLog::new());
    let tools = one(&mut m, &modern(1, "tools/list", json!({})));
    assert_eq!(tools["result"]["resultType"], "complete");
    assert_eq!(tools["result"]["ttlMs"], 60_000);
    assert_eq!(tools["result"]["cacheScope"], "private");
    // The same list, in the same order, as the handshake era's.
    let legacy = one(&mut m, r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
    assert_eq!(tools["result"]["tools"], legacy["result"]["tools"]);
    assert!(legacy["result"].get("resultType").is_none());

    let read = one(
        &mut m,
        &modern(
            3,
            "resources/read",
            json!({"uri": "memory://knowledge-graph"}),
        ),
    );
    assert_eq!(read["result"]["ttlMs"], 0);
    assert!(
        read["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("\"entities\": []")
    );
    for method in ["resources/list", "resources/templates/list"] {
        let r = one(&mut m, &modern(4, method, json!({})));
        assert_eq!(r["result"]["ttlMs"], 60_000, "{method}");
    }
    let call = one(
        &mut m,
        &modern(
            5,
            "tools/call",
            json!({"name": "create_entities", "arguments": {"entities": [
                {"name": "Ada", "entityType": "person", "observations": ["wrote notes"]}]}}),
        ),
    );
    assert_eq!(call["result"]["resultType"], "complete");
    assert!(call["result"].get("ttlMs").is_none());
    assert_eq!(
        call["result"]["structuredContent"]["entities"][0]["name"],
        "Ada"
    );
    // A whole graph, sent a piece at a time, is stamped too.
    let graph = one(
        &mut m,
        &modern(6, "tools/call", json!({"name": "read_graph"})),
    );
    assert_eq!(graph["result"]["resultType"], "complete");
    assert_eq!(
        graph["result"]["structuredContent"]["entities"][0]["name"],
        "Ada"
    );
}

#[test]
fn removed_methods_and_bad_params_get_modern_codes_only_when_modern() {
    let mut m = open(MemLog::new());
    for method in ["ping", "resources/subscribe", "logging/setLevel"] {
        let r = one(
            &mut m,
            &modern(
                1,
                method,
                json!({"uri": "memory://knowledge-graph", "level": "info"}),
            ),
        );
        assert_eq!(r["error"]["code"], -32601, "{method}");
    }
    let r = one(&mut m, r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
    assert_eq!(r["result"], json!({}));
    // A tools/call without a name: -32602 modern, the reference's -32603 otherwise.
    let r = one(&mut m, &modern(3, "tools/call", json!({})));
    assert_eq!(r["error"]["code"], -32602);
    let r = one(
        &mut m,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{}}"#,
    );
    assert_eq!(r["error"]["code"], -32603);
    // initialize stays the handshake, even carrying the envelope.
    let init = json!({"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "_meta": envelope(),
        "clientInfo": {"name": "c", "version": "1"}}});
    let r = one(&mut m, &init.to_string());
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
    assert!(r["result"].get("resultType").is_none());
}

#[test]
fn handshake_replies_are_unchanged_beside_modern_requests() {
    let mut a = open(MemLog::new());
    let mut b = open(MemLog::new());
    let legacy = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_entities","arguments":{"entities":[{"name":"A","entityType":"t","observations":[]}]}}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"memory://knowledge-graph"}}"#,
    ];
    for (i, message) in legacy.iter().enumerate() {
        let alone = a.handle_in(0, 1_000, message);
        b.handle_in(
            0,
            1_000,
            &modern(100 + i as u64, "server/discover", json!({})),
        );
        assert_eq!(b.handle_in(0, 1_000, message), alone, "{message}");
    }
}

#[test]
fn modern_changes_are_stamped_with_the_envelopes_client() {
    let (mut m, _) = initialized_at(1_000);
    one(
        &mut m,
        &modern(
            1,
            "tools/call",
            json!({"name": "create_entities", "arguments": {"entities": [
                {"name": "Ada", "entityType": "person", "observations": []}]}}),
        ),
    );
    let r = one(
        &mut m,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"history","arguments":{}}}"#,
    );
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("py-sdk"), "{text}");
    assert!(text.contains("2.3.0"), "{text}");
}

#[test]
fn listen_acknowledges_then_tags_each_change_until_cancelled() {
    let mut m = open(MemLog::new());
    let listen = modern(
        7,
        "subscriptions/listen",
        json!({"notifications": {"resourceSubscriptions": ["memory://knowledge-graph", "memory://other"],
            "toolsListChanged": true}}),
    );
    // Session 1 listens: acknowledged, with only what is honored; no reply yet.
    let ack = send(&mut m, 1, &listen);
    assert_eq!(
        ack,
        vec![
            json!({"method": "notifications/subscriptions/acknowledged", "params": {
            "notifications": {"resourceSubscriptions": ["memory://knowledge-graph"]},
            "_meta": {"io.modelcontextprotocol/subscriptionId": 7}}, "jsonrpc": "2.0"})
        ]
    );
    // The same listen again is the same stream: heard once.
    assert_eq!(send(&mut m, 1, &listen), ack);
    // Session 2 changes the graph: session 1 hears it, tagged with its listen's id.
    let create = modern(
        8,
        "tools/call",
        json!({"name": "create_entities", "arguments": {"entities": [
            {"name": "Ada", "entityType": "person", "observations": []}]}}),
    );
    let out = send(&mut m, 2, &create);
    assert_eq!(out.len(), 1, "{out:?}");
    let notices = m.take_notices();
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0].0, 1);
    let notice: Value = serde_json::from_str(&notices[0].1).unwrap();
    assert_eq!(notice["method"], "notifications/resources/updated");
    assert_eq!(notice["params"]["uri"], "memory://knowledge-graph");
    assert_eq!(
        notice["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
    // A change on the listening session itself comes before its reply.
    let out = send(&mut m, 1, &create.replace("\"id\":8", "\"id\":9"));
    assert_eq!(out.len(), 2);
    assert_eq!(
        out[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
    // Another session's cancel of id 7 ends nothing; the listener's own does.
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#;
    assert!(send(&mut m, 2, cancel).is_empty());
    send(&mut m, 2, &create.replace("\"id\":8", "\"id\":10"));
    assert_eq!(m.take_notices().len(), 1);
    assert!(send(&mut m, 1, cancel).is_empty());
    send(&mut m, 2, &create.replace("\"id\":8", "\"id\":11"));
    assert!(m.take_notices().is_empty());
}

#[test]
fn a_listen_without_the_graph_honors_nothing_and_ends_with_the_session() {
    let mut m = open(MemLog::new());
    let ack = send(
        &mut m,
        1,
        &modern(
            1,
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true}}),
        ),
    );
    assert_eq!(ack[0]["params"]["notifications"], json!({}));
    let r = one(&mut m, &modern(2, "subscriptions/listen", json!({})));
    assert_eq!(r["error"]["code"], -32602);
    send(
        &mut m,
        1,
        &modern(
            3,
            "subscriptions/listen",
            json!({"notifications": {"resourceSubscriptions": ["memory://knowledge-graph"]}}),
        ),
    );
    m.end_session(1);
    send(
        &mut m,
        2,
        &modern(
            4,
            "tools/call",
            json!({"name": "create_entities", "arguments": {"entities": []}}),
        ),
    );
    assert!(m.take_notices().is_empty());
}

#[test]
fn classify_and_headers_tell_a_transport_what_a_modern_request_is() {
    let discover = modern(1, "server/discover", json!({}));
    assert_eq!(
        mcp::classify(&discover),
        Kind::Request {
            id: "1".into(),
            initialize: false,
            modern: true
        }
    );
    let call = modern(2, "tools/call", json!({"name": "read_graph"}));
    let good = Headers {
        version: Some(V),
        method: Some("tools/call"),
        name: Some("read_graph"),
    };
    assert_eq!(mcp::header_refusal(&call, good), None);
    let cases = [
        (
            Headers {
                version: None,
                ..good
            },
            "MCP-Protocol-Version",
        ),
        (
            Headers {
                version: Some("2025-11-25"),
                ..good
            },
            "MCP-Protocol-Version",
        ),
        (
            Headers {
                method: Some("tools/list"),
                ..good
            },
            "Mcp-Method",
        ),
        (Headers { name: None, ..good }, "Mcp-Name"),
        (
            Headers {
                name: Some("search_nodes"),
                ..good
            },
            "Mcp-Name",
        ),
    ];
    for (headers, named) in cases {
        let reply: Value =
            serde_json::from_str(&mcp::header_refusal(&call, headers).unwrap()).unwrap();
        assert_eq!(reply["id"], 2);
        assert_eq!(reply["error"]["code"], -32020);
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with(named),
            "{reply}"
        );
    }
    // A handshake-era message is not checked.
    let legacy = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#;
    assert_eq!(mcp::header_refusal(legacy, Headers::default()), None);
}
