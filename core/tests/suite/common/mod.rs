//! Shared test helpers: functions that speak MCP to a [`Server`], and the reference's
//! shapes. The in-memory logs and disks are the core's own (`mcp_memory_core::testing`).

#![allow(dead_code)]

pub mod model;
pub mod ops;

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

#[allow(unused_imports)]
pub use mcp_memory_core::testing::{CrashLog, CrashRng, MemDir, MemDisk, MemLog};
use mcp_memory_core::{Log, Server};
use serde_json::{Value, json};

/// The reference server's nine tools, in its listing order.
#[allow(unused_imports)]
pub use mcp_memory_core::tools::reference::NINE as REFERENCE_TOOLS;

/// Sets the host's clock for the next calls (a ping at that time).
pub fn at<L: Log>(m: &mut Server<L>, ms: u64) {
    m.handle_in(0, ms, r#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#);
}

/// A fresh memory whose client (claude-code 2.1.0) said who it is at `ms`.
pub fn initialized_at(ms: u64) -> (Server<MemLog>, MemLog) {
    let log = MemLog::new();
    let mut m = open(log.clone());
    initialize_as(&mut m, "claude-code", "2.1.0", ms);
    (m, log)
}

/// Client `name` `version` says who it is at `ms`.
pub fn initialize_as<L: Log>(m: &mut Server<L>, name: &str, version: &str, ms: u64) {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": name, "version": version}}});
    m.handle_in(0, ms, &init.to_string());
}

/// The shipped embedding table's bytes (`core/embeddings/table.bin`), read once.
pub fn embedding_table_bytes() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/embeddings/table.bin");
        std::fs::read(path).expect("core/embeddings/table.bin is committed")
    })
}

/// Proptest cases: `PROPTEST_CASES` when set (for long runs), else `default`.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

// ---------------------------------------------------------------------------------------------
// Speaking MCP
// ---------------------------------------------------------------------------------------------

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Opens a memory over `log`, failing the test if it cannot be opened.
pub fn open<L: Log>(log: L) -> Server<L> {
    match Server::open(log) {
        Ok((memory, _warnings)) => memory,
        Err(e) => panic!("Server::open failed: {e}"),
    }
}

/// A fresh, empty memory and its log.
pub fn fresh() -> (Server<MemLog>, MemLog) {
    let log = MemLog::new();
    (open(log.clone()), log)
}

/// A memory converted from a reference JSONL file made of these lines, and its log.
pub fn from_jsonl(lines: &[String]) -> (Server<MemLog>, MemLog) {
    let log = MemLog::foreign(lines.join("\n").as_bytes());
    (open(log.clone()), log)
}

/// A memory of `profile` over `log`, its clock at `now`.
pub fn profiled<L: Log>(log: L, profile: &str, now: u64) -> Server<L> {
    let mut m = open(log);
    m.set_tools(profile, "").expect("a known profile");
    at(&mut m, now);
    m
}

/// A memory of profile `mcp-memory-py` over `log`, its clock at `now`.
pub fn py<L: Log>(log: L, now: u64) -> Server<L> {
    profiled(log, "mcp-memory-py", now)
}

/// Hands the shipped embedding table to the memory (semantic search).
pub fn load_table<L: Log>(m: &mut Server<L>) {
    let table = mcp_memory_core::embed::Table::parse(embedding_table_bytes().to_vec())
        .expect("the committed table parses");
    m.memory_mut().set_embedding_table(table);
}

/// create_entities of these entities, which must succeed.
pub fn create<L: Log>(memory: &mut Server<L>, entities: &[Value]) -> Value {
    call_ok(memory, "create_entities", json!({ "entities": entities }))
}

/// create_relations of these relations, which must succeed.
pub fn relate<L: Log>(memory: &mut Server<L>, relations: &[Value]) -> Value {
    call_ok(
        memory,
        "create_relations",
        json!({ "relations": relations }),
    )
}

/// Opens a memory over `log` and returns its warnings too.
pub fn open_with_warnings<L: Log>(log: L) -> (Server<L>, Vec<String>) {
    Server::open(log).unwrap_or_else(|e| panic!("Server::open failed: {e}"))
}

/// Sends one raw line and parses every line the memory sends back.
pub fn send<L: Log>(memory: &mut Server<L>, line: &str) -> Vec<Value> {
    memory
        .handle(line)
        .iter()
        .map(|out| {
            assert!(
                !out.contains('\n'),
                "an outgoing message spans lines: {out}"
            );
            serde_json::from_str(out).unwrap_or_else(|e| panic!("reply is not JSON ({e}): {out}"))
        })
        .collect()
}

/// Sends a request and returns every message sent back (notifications, then the reply),
/// checking that exactly the last one is the reply to this request.
pub fn request_all<L: Log>(memory: &mut Server<L>, method: &str, params: Value) -> Vec<Value> {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
    let out = send(memory, &line);
    let (reply, before) = out.split_last().expect("a request gets a reply");
    assert_eq!(
        reply["id"],
        json!(id),
        "the last message is the reply: {out:?}"
    );
    assert_eq!(reply["jsonrpc"], "2.0");
    for m in before {
        assert!(
            m.get("id").is_none(),
            "only notifications precede the reply"
        );
    }
    out
}

/// Sends a request and returns the reply (`{"result": …}` or `{"error": …}` object).
pub fn request<L: Log>(memory: &mut Server<L>, method: &str, params: Value) -> Value {
    request_all(memory, method, params)
        .pop()
        .expect("a request gets a reply")
}

/// Calls a tool and returns every message sent back, the reply last.
pub fn call_all<L: Log>(memory: &mut Server<L>, tool: &str, args: Value) -> Vec<Value> {
    request_all(
        memory,
        "tools/call",
        json!({"name": tool, "arguments": args}),
    )
}

/// Calls a tool and returns the request id and the raw lines sent back.
pub fn call_raw<L: Log>(memory: &mut Server<L>, tool: &str, args: Value) -> (u64, Vec<String>) {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let line = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                      "params": {"name": tool, "arguments": args}})
    .to_string();
    (id, memory.handle(&line))
}

/// Calls a tool and returns its `CallToolResult`.
pub fn call<L: Log>(memory: &mut Server<L>, tool: &str, args: Value) -> Value {
    let reply = call_all(memory, tool, args).pop().expect("reply");
    match reply.get("result") {
        Some(result) => result.clone(),
        None => panic!("tools/call got a JSON-RPC error: {reply}"),
    }
}

/// Calls a tool that must succeed and returns its structuredContent, checking the envelope:
/// one text item (when it is a JSON object, the content itself) and no `isError` key.
pub fn call_ok<L: Log>(memory: &mut Server<L>, tool: &str, args: Value) -> Value {
    let result = call(memory, tool, args);
    assert!(
        result.get("isError").is_none(),
        "{tool} failed: {}",
        result["content"][0]["text"]
    );
    let obj = result.as_object().expect("result is an object");
    assert_eq!(
        obj.len(),
        2,
        "exactly content and structuredContent: {result}"
    );
    let content = result["content"].as_array().expect("content array");
    assert_eq!(content.len(), 1);
    assert_eq!(content[0]["type"], "text");
    let text = content[0]["text"].as_str().expect("text");
    if let Ok(parsed @ Value::Object(_)) = serde_json::from_str::<Value>(text) {
        // The TypeScript server's get_parent answers the bare parent; structuredContent
        // wraps it.
        let content = match tool {
            "get_parent" => &result["structuredContent"]["parent"],
            _ => &result["structuredContent"],
        };
        assert_eq!(
            &parsed, content,
            "{tool}: text and structuredContent differ"
        );
    }
    result["structuredContent"].clone()
}

/// Calls a tool that must succeed once per 1,000 `items` (the per-request limit), passing
/// them as the argument `key`.
pub fn call_in_chunks<L: Log>(memory: &mut Server<L>, tool: &str, key: &str, items: Vec<Value>) {
    for chunk in items.chunks(1000) {
        call_ok(memory, tool, json!({ key: chunk }));
    }
}

/// Calls a tool that must fail with a tool error and returns the error text.
pub fn call_err<L: Log>(memory: &mut Server<L>, tool: &str, args: Value) -> String {
    let result = call(memory, tool, args);
    assert_eq!(
        result["isError"],
        json!(true),
        "{tool} should fail: {result}"
    );
    assert!(result.get("structuredContent").is_none());
    let content = result["content"].as_array().expect("content array");
    assert_eq!(content.len(), 1);
    assert_eq!(content[0]["type"], "text");
    content[0]["text"].as_str().expect("text").to_string()
}

/// The result's text, which the seed's clients parse: `want` as `JSON.stringify(x, null, 2)`
/// writes it, its (first) object's keys in the seed's order, `first` first (`json!` sorts
/// keys, so the order is checked apart).
pub fn assert_text(result: &Value, want: &Value, first: &str) {
    let text = result["content"][0]["text"].as_str().unwrap();
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), *want);
    let object = format!("{{\n  \"{first}\"");
    let array = format!("[\n  {{\n    \"{first}\"");
    assert!(
        text.starts_with(&object) || text.starts_with(&array),
        "{text}"
    );
}

/// The text of a result's only content item.
pub fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().expect("text content")
}

/// A graph answer with its entities in a canonical order: search_nodes orders its answer by
/// relevance, so it is compared with the reference model's (graph order) as a set.
pub fn unordered(answer: &Value) -> Value {
    let mut answer = answer.clone();
    if let Some(entities) = answer["entities"].as_array_mut() {
        entities.sort_by_key(|e| e.to_string());
    }
    answer
}

/// Checks a search_nodes answer against the reference's (`docs/compatibility.md` §8): the
/// reference's entities come first (in relevance order, so compared as a set), anything
/// after them is an entity the reference did not return (a ranked word match), and every
/// relation the reference returns is there.
pub fn assert_search_superset(got: &Value, reference: &Value, what: &str) {
    let (ours, theirs) = (
        got["entities"].as_array().unwrap(),
        reference["entities"].as_array().unwrap(),
    );
    let (first, extra) = ours.split_at(theirs.len().min(ours.len()));
    assert_eq!(
        unordered(&json!({ "entities": first })),
        unordered(&json!({ "entities": theirs })),
        "{what}: the reference's entities, first"
    );
    for entity in extra {
        // (Another entity may share a name: a reference file can hold duplicates.)
        assert!(!theirs.contains(entity), "{what}: {entity} twice");
    }
    let relations = got["relations"].as_array().unwrap();
    for r in reference["relations"].as_array().unwrap() {
        assert!(relations.contains(r), "{what}: relation {r} missing");
    }
}

/// Dialogue turns for question tests: only `turn-1` answers "What did Caroline say about the
/// adoption agency?"; `turn-3` shares only the name, `turn-2` nothing.
pub fn caroline_turns() -> Vec<Value> {
    vec![
        entity(
            "turn-1",
            "dialogue_turn",
            &["Caroline: I called the adoption agency today"],
        ),
        entity(
            "turn-2",
            "dialogue_turn",
            &["Melanie: what did you do about the garden"],
        ),
        entity("turn-3", "dialogue_turn", &["Caroline: what a day it was"]),
    ]
}

/// Names of the entities in a `{entities, relations}` result.
pub fn entity_names(result: &Value) -> Vec<String> {
    result["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect()
}

/// The whole graph, as read_graph's structuredContent.
pub fn graph<L: Log>(memory: &mut Server<L>) -> Value {
    call_ok(memory, "read_graph", json!({}))
}

/// An entity as tools show it.
pub fn entity(name: &str, entity_type: &str, observations: &[&str]) -> Value {
    json!({"name": name, "entityType": entity_type, "observations": observations})
}

/// A relation as tools show it.
pub fn relation(from: &str, to: &str, relation_type: &str) -> Value {
    json!({"from": from, "to": to, "relationType": relation_type})
}

/// `{entities, relations}` as read_graph, search_nodes and open_nodes return it.
pub fn graph_of(entities: &[Value], relations: &[Value]) -> Value {
    json!({"entities": entities, "relations": relations})
}

/// A JSON string literal as `JSON.stringify` writes it.
pub fn js_string(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialize")
}

/// One entity line of a reference JSONL file, exactly as the reference writes it.
pub fn entity_line(name: &str, entity_type: &str, observations: &[&str]) -> String {
    let obs: Vec<String> = observations.iter().map(|o| js_string(o)).collect();
    format!(
        r#"{{"type":"entity","name":{},"entityType":{},"observations":[{}]}}"#,
        js_string(name),
        js_string(entity_type),
        obs.join(",")
    )
}

/// One relation line of a reference JSONL file, exactly as the reference writes it.
pub fn relation_line(from: &str, to: &str, relation_type: &str) -> String {
    format!(
        r#"{{"type":"relation","from":{},"to":{},"relationType":{}}}"#,
        js_string(from),
        js_string(to),
        js_string(relation_type)
    )
}

/// The reference's file bytes for a graph given as read_graph JSON (§4.1): entity lines,
/// then relation lines, compact, joined by `\n`, no trailing newline.
pub fn reference_jsonl(graph: &Value) -> Vec<u8> {
    let strs = |v: &Value| -> Vec<String> {
        v.as_array()
            .expect("array")
            .iter()
            .map(|s| s.as_str().expect("string").to_string())
            .collect()
    };
    let mut lines = Vec::new();
    for e in graph["entities"].as_array().expect("entities") {
        let obs = strs(&e["observations"]);
        let obs: Vec<&str> = obs.iter().map(String::as_str).collect();
        lines.push(entity_line(
            e["name"].as_str().expect("name"),
            e["entityType"].as_str().expect("entityType"),
            &obs,
        ));
    }
    for r in graph["relations"].as_array().expect("relations") {
        lines.push(relation_line(
            r["from"].as_str().expect("from"),
            r["to"].as_str().expect("to"),
            r["relationType"].as_str().expect("relationType"),
        ));
    }
    lines.join("\n").into_bytes()
}

// ---------------------------------------------------------------------------------------------
// The reference's bytes
// ---------------------------------------------------------------------------------------------

/// Key order of every object the tools return, as the reference writes them.
const KEY_ORDER: &[&str] = &[
    "entities",
    "relations",
    "results",
    "name",
    "entityType",
    "observations",
    "from",
    "to",
    "relationType",
    "entityName",
    "addedObservations",
    "success",
    "message",
];

fn ordered(map: &serde_json::Map<String, Value>) -> Vec<(&String, &Value)> {
    let rank = |k: &str| {
        KEY_ORDER
            .iter()
            .position(|o| *o == k)
            .unwrap_or_else(|| panic!("unexpected key {k:?} in a tool result"))
    };
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_by_key(|(k, _)| rank(k));
    entries
}

/// `JSON.stringify(value)` of a tool-result value, keys in the reference's order.
pub fn js_compact(value: &Value) -> String {
    match value {
        Value::String(s) => js_string(s),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(js_compact).collect();
            format!("[{}]", items.join(","))
        }
        Value::Object(map) => {
            let fields: Vec<String> = ordered(map)
                .into_iter()
                .map(|(k, v)| format!("{}:{}", js_string(k), js_compact(v)))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        other => other.to_string(),
    }
}

/// `JSON.stringify(value, null, 2)` of a tool-result value, keys in the reference's order.
pub fn js_pretty(value: &Value) -> String {
    fn at(value: &Value, depth: usize) -> String {
        let pad = |d: usize| "  ".repeat(d);
        match value {
            Value::Array(items) if !items.is_empty() => {
                let items: Vec<String> = items
                    .iter()
                    .map(|v| format!("{}{}", pad(depth + 1), at(v, depth + 1)))
                    .collect();
                format!("[\n{}\n{}]", items.join(",\n"), pad(depth))
            }
            Value::Object(map) if !map.is_empty() => {
                let fields: Vec<String> = ordered(map)
                    .into_iter()
                    .map(|(k, v)| {
                        format!("{}{}: {}", pad(depth + 1), js_string(k), at(v, depth + 1))
                    })
                    .collect();
                format!("{{\n{}\n{}}}", fields.join(",\n"), pad(depth))
            }
            other => js_compact(other),
        }
    }
    at(value, 0)
}

/// The reference's reply line for a successful tool call.
pub fn reference_success_line(id: u64, text: &str, structured: &Value) -> String {
    format!(
        r#"{{"result":{{"content":[{{"type":"text","text":{}}}],"structuredContent":{}}},"jsonrpc":"2.0","id":{id}}}"#,
        js_string(text),
        js_compact(structured)
    )
}

/// Checks `value` against the JSON Schema keywords the tool schemas use (anyOf, enum, type,
/// required, properties, additionalProperties: false, items, minimum, maximum); returns the
/// first violation.
pub fn schema_violation(schema: &Value, value: &Value, at: &str) -> Option<String> {
    if let Some(options) = schema.get("anyOf").and_then(Value::as_array)
        && options
            .iter()
            .all(|s| schema_violation(s, value, at).is_some())
    {
        return Some(format!("{at}: matches no anyOf option: {value}"));
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        return Some(format!("{at}: {value} is not in {allowed:?}"));
    }
    let is = |t: &str| match t {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_u64() || value.is_i64(),
        "number" => value.is_number(),
        "null" => value.is_null(),
        other => panic!("unknown type {other}"),
    };
    match schema.get("type") {
        Some(Value::String(t)) if !is(t) => return Some(format!("{at}: not {t}: {value}")),
        Some(Value::Array(ts)) if !ts.iter().any(|t| is(t.as_str().unwrap())) => {
            return Some(format!("{at}: none of {ts:?}: {value}"));
        }
        _ => {}
    }
    if let Some(x) = value.as_f64() {
        let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
        if bound("minimum").is_some_and(|min| x < min)
            || bound("maximum").is_some_and(|max| x > max)
        {
            return Some(format!("{at}: {x} is out of its bounds"));
        }
    }
    if let Value::Object(map) = value {
        let props = schema.get("properties").and_then(Value::as_object);
        for key in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let key = key.as_str().unwrap();
            if !map.contains_key(key) {
                return Some(format!("{at}: missing {key}"));
            }
        }
        for (k, v) in map {
            match props.and_then(|p| p.get(k)) {
                Some(s) => {
                    if let Some(e) = schema_violation(s, v, &format!("{at}.{k}")) {
                        return Some(e);
                    }
                }
                None if schema.get("additionalProperties") == Some(&json!(false)) => {
                    return Some(format!("{at}: unexpected key {k}"));
                }
                None => {}
            }
        }
    }
    if let (Value::Array(items), Some(s)) = (value, schema.get("items")) {
        for (i, item) in items.iter().enumerate() {
            if let Some(e) = schema_violation(s, item, &format!("{at}[{i}]")) {
                return Some(e);
            }
        }
    }
    None
}

/// Calls each of `calls` once, in order: together they must name every tool tools/list
/// lists, each once; each call's arguments must fit its tool's input schema, and it must
/// succeed with a text item and structuredContent fitting the output schema. Returns each
/// call's name and result, for checks of the caller's own.
pub fn call_every_listed_tool<'c, L: Log>(
    m: &mut Server<L>,
    calls: Vec<(&'c str, Value)>,
) -> Vec<(&'c str, Value)> {
    let listed = request(m, "tools/list", json!({}));
    let tools: std::collections::BTreeMap<String, Value> = listed["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| (t["name"].as_str().expect("name").to_string(), t.clone()))
        .collect();
    let mut called: Vec<&str> = calls.iter().map(|(name, _)| *name).collect();
    called.sort_unstable();
    assert_eq!(
        called,
        tools.keys().map(String::as_str).collect::<Vec<_>>(),
        "one call per listed tool"
    );
    let mut results = Vec::with_capacity(calls.len());
    for (name, args) in calls {
        let tool = &tools[name];
        let input = schema_violation(&tool["inputSchema"], &args, "arguments");
        assert_eq!(input, None, "{name}");
        let result = call(m, name, args);
        assert!(result.get("isError").is_none(), "{name}: {result}");
        assert!(result["content"][0]["text"].is_string(), "{name}: {result}");
        let structured = &result["structuredContent"];
        let output = schema_violation(&tool["outputSchema"], structured, name);
        assert_eq!(output, None, "{name}: {structured}");
        results.push((name, result));
    }
    results
}
