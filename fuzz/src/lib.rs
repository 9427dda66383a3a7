//! What the fuzz targets share: the core's in-memory log and disk (`mcp_memory_core::testing`),
//! replays computed without a memory, and the checks every reply must pass.

pub mod generate;

use mcp_memory_core::filelog::FileLog;
use mcp_memory_core::graph::Graph;
use mcp_memory_core::json::parse_lenient;
use mcp_memory_core::mcp::{GRAPH_URI, era};
use mcp_memory_core::record::{Checkpoint, Entry, is_checkpoint};
pub use mcp_memory_core::testing::{MemDir, MemDisk, MemLog};
use mcp_memory_core::{Contents, frame, jsonl, memory};
use serde_json::{Map, Value};

/// The graph a restart over `contents` holds, as reference JSONL (`None` if it would not
/// open or be available), computed without a `Memory`: the records (or the JSONL file's
/// records) applied to an empty graph. `Memory::open` parses the tool catalog, which is most
/// of a fuzz iteration's time, so the targets use this for their many intermediate checks
/// and a real `Server::open` where the open path itself is under test.
pub fn replayed(contents: &Contents) -> Option<Vec<u8>> {
    Some(jsonl::export(&graph_of(contents)?))
}

/// The compacted log of the graph `contents` holds, as `Memory::export_log` writes it.
pub fn compacted_log(contents: &Contents) -> Option<Vec<u8>> {
    let records = graph_of(contents)?.snapshot();
    Some(frame::encode_log(records.iter().map(Vec::as_slice)))
}

/// The graph `contents` replays to (a reference JSONL file through its records), or `None`
/// if a record does not decode or the file does not parse.
fn graph_of(contents: &Contents) -> Option<Graph> {
    let parsed;
    let records = match contents {
        Contents::Records(r) | Contents::FromCheckpoint { entries: r, .. } => r,
        Contents::Foreign(file) => {
            parsed = memory::foreign(file).ok()?;
            &parsed
        }
    };
    // From the last checkpoint that decodes (it restates what came before), else from the
    // start, where only a leading checkpoint is the state and later ones are skipped.
    let start = records
        .iter()
        .rposition(|r| is_checkpoint(r))
        .filter(|&at| Checkpoint::decode(&records[at]).is_ok())
        .unwrap_or(0);
    let mut graph = Graph::default();
    for (i, r) in records.iter().enumerate().skip(start) {
        match Entry::decode(r).ok()? {
            Entry::Change(record) => graph.apply(&record, &mut ()),
            Entry::Checkpoint if i == start => {
                graph = Graph::from_checkpoint(r).ok()?;
            }
            Entry::Checkpoint => {}
        }
    }
    Some(graph)
}

// ---------------------------------------------------------------------------------------------
// A memory file on a simulated disk (one process)
// ---------------------------------------------------------------------------------------------

/// The memory file's name in the simulated directory.
pub const FILE_NAME: &str = "memory.jsonl";

/// A directory in memory holding a memory file with these bytes.
pub fn dir_with_file(bytes: &[u8]) -> MemDir {
    MemDir::with_file(FILE_NAME, bytes)
}

/// The memory file in `dir` as the only process opens it, holding its lock (as a host
/// does around opening).
pub fn file_log(dir: &MemDir) -> FileLog<MemDisk> {
    let mut log = FileLog::new(dir.open(FILE_NAME, 1));
    log.lock().expect("the only process takes the lock");
    log
}

// ---------------------------------------------------------------------------------------------
// Replies
// ---------------------------------------------------------------------------------------------

/// Largest integer id JavaScript clients can send exactly (Number.MAX_SAFE_INTEGER).
const MAX_SAFE_ID: f64 = 9_007_199_254_740_991.0;

/// What the MCP SDK's schema makes of one incoming line: a request (which gets exactly one
/// reply, echoing its id) or anything else (which gets none). Written from the SDK's
/// JSONRPCRequest schema, independently of `core/src/mcp.rs`.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A request: the id its reply must carry (integers as integers), its method and params.
    Request {
        /// The id, as the reply must echo it.
        id: Value,
        /// The method.
        method: String,
        /// The params object, if any.
        params: Option<Map<String, Value>>,
    },
    /// No reply expected.
    Silent,
}

/// A request id as the oracle keeps it: a string, or a safe integer as an integer (`1.0` is
/// `1`), as the server reads it; `None` for one MCP does not allow.
pub fn id_of(id: &Value) -> Option<Value> {
    match id {
        Value::String(s) => Some(Value::String(s.clone())),
        Value::Number(n) => {
            let f = n.as_f64()?;
            (f.fract() == 0.0 && f.abs() <= MAX_SAFE_ID).then(|| Value::from(f as i64))
        }
        _ => None,
    }
}

/// Classifies one incoming line.
pub fn classify(line: &str) -> Incoming {
    let Ok((msg, _)) = parse_lenient::<Value>(line) else {
        return Incoming::Silent;
    };
    let Value::Object(obj) = msg else {
        return Incoming::Silent;
    };
    if obj.get("jsonrpc") != Some(&Value::String("2.0".into())) {
        return Incoming::Silent;
    }
    let Some(Value::String(method)) = obj.get("method") else {
        return Incoming::Silent;
    };
    if obj
        .keys()
        .any(|k| !["jsonrpc", "id", "method", "params"].contains(&k.as_str()))
    {
        return Incoming::Silent;
    }
    let params = match obj.get("params") {
        None => None,
        Some(Value::Object(p)) => match p.get("_meta") {
            None | Some(Value::Object(_)) => Some(p.clone()),
            Some(_) => return Incoming::Silent,
        },
        Some(_) => return Incoming::Silent,
    };
    let Some(id) = obj.get("id").and_then(id_of) else {
        return Incoming::Silent;
    };
    Incoming::Request {
        id,
        method: method.clone(),
        params,
    }
}

/// The notification a subscriber gets when the graph may have changed: untagged for a
/// `resources/subscribe`, else tagged with the `subscriptions/listen` request's id.
pub fn is_updated_notification(v: &Value) -> bool {
    let params = v["params"].as_object();
    v.get("id").is_none()
        && v["jsonrpc"] == "2.0"
        && v["method"] == "notifications/resources/updated"
        && v["params"]["uri"] == GRAPH_URI
        && params.is_some_and(|p| p.len() == 1 || (p.len() == 2 && listen_of(v).is_some()))
}

/// The `subscriptions/listen` id a message is tagged with.
pub fn listen_of(v: &Value) -> Option<&Value> {
    v["params"]["_meta"].get(era::SUBSCRIPTION_KEY)
}

/// One exchange as the oracle sees it.
pub struct Exchange {
    /// The reply, if the message got one (a modern result without what every modern result
    /// carries: `resultType`, `ttlMs`, `cacheScope`).
    pub reply: Option<Value>,
    /// Notifications sent before it.
    pub notifications: usize,
    /// For an acknowledged `subscriptions/listen`: whether it honored the graph.
    pub listening: Option<bool>,
}

impl Exchange {
    /// The tool result of a tools/call reply (`None` for a JSON-RPC error).
    pub fn tool_result(&self) -> Option<&Value> {
        self.reply.as_ref()?.get("result")
    }

    /// Whether the reply is a JSON-RPC error or an `isError` tool result.
    pub fn failed(&self) -> bool {
        match &self.reply {
            Some(r) => r.get("error").is_some() || r["result"]["isError"] == Value::Bool(true),
            None => false,
        }
    }

    /// The text of a tool result's only content item.
    pub fn text(&self) -> Option<&str> {
        self.tool_result()?["content"][0]["text"].as_str()
    }
}

/// Checks what the memory sent for `line`: every outgoing message is one line of JSON; a
/// request gets exactly one reply, last, with its id, and only resource notifications before
/// it (at most two per subscription); an accepted modern
/// `subscriptions/listen` gets only its acknowledgement; anything else gets nothing.
pub fn check_exchange(line: &str, incoming: &Incoming, out: &[String]) -> Exchange {
    let msgs: Vec<Value> = out
        .iter()
        .map(|o| {
            assert!(!o.contains('\n'), "an outgoing message spans lines: {o}");
            serde_json::from_str(o)
                .unwrap_or_else(|e| panic!("outgoing message is not JSON ({e}): {o}"))
        })
        .collect();
    let Incoming::Request { id, method, params } = incoming else {
        assert!(
            msgs.is_empty(),
            "no reply expected to {line:?}, got {out:?}"
        );
        return Exchange {
            reply: None,
            notifications: 0,
            listening: None,
        };
    };
    let modern = era::is_modern(method, params.as_ref());
    if let [ack] = msgs.as_slice()
        && modern
        && method == "subscriptions/listen"
        && ack["method"] == "notifications/subscriptions/acknowledged"
    {
        assert_eq!(listen_of(ack), Some(id), "{ack}");
        let honored = &ack["params"]["notifications"];
        return Exchange {
            reply: None,
            notifications: 0,
            listening: Some(honored["resourceSubscriptions"][0] == GRAPH_URI),
        };
    }
    let (reply, before) = msgs
        .split_last()
        .unwrap_or_else(|| panic!("request {line:?} got no reply"));
    let mut tags = Vec::new();
    for n in before {
        assert!(
            is_updated_notification(n),
            "before the reply of {line:?}: {n}"
        );
        tags.push(listen_of(n));
    }
    // Each subscription hears of a request at most twice: a catch-up with other writers,
    // then the request's own change.
    tags.sort_by_key(|t| t.map(Value::to_string));
    for same in tags.chunk_by(|a, b| a == b) {
        assert!(same.len() <= 2, "too many notifications: {out:?}");
    }
    let obj = reply
        .as_object()
        .unwrap_or_else(|| panic!("reply is not an object: {reply}"));
    assert_eq!(
        obj.get("jsonrpc"),
        Some(&Value::String("2.0".into())),
        "{reply}"
    );
    assert_eq!(
        obj.get("id"),
        Some(id),
        "reply to {line:?} has the wrong id: {reply}"
    );
    assert_eq!(
        obj.len(),
        3,
        "reply has jsonrpc, id and one of result/error: {reply}"
    );
    let mut reply = reply.clone();
    match (reply.get_mut("result"), obj.get("error")) {
        (Some(result), None) => {
            assert!(result.is_object(), "{reply:?}");
            if modern {
                let fields = result.as_object_mut().expect("an object");
                assert_eq!(fields.remove("resultType"), Some("complete".into()));
                if fields.remove("ttlMs").is_some() {
                    assert_eq!(fields.remove("cacheScope"), Some("private".into()));
                }
            }
            if method == "tools/call" {
                check_tool_result(
                    params
                        .as_ref()
                        .and_then(|p| p.get("name"))
                        .unwrap_or(&Value::Null),
                    result,
                );
            }
        }
        (None, Some(error)) => {
            assert!(error["code"].is_i64(), "{reply}");
            assert!(error["message"].is_string(), "{reply}");
            // Only -32022 says more: the versions served.
            let more =
                usize::from(error["code"] == -32022 && error["data"]["supported"].is_array());
            assert_eq!(error.as_object().map(Map::len), Some(2 + more), "{reply}");
        }
        _ => panic!("reply has neither result nor error: {reply}"),
    }
    Exchange {
        reply: Some(reply),
        notifications: before.len(),
        listening: None,
    }
}

/// The tools whose text is a seed's bare answer that structuredContent, always an object,
/// wraps under a key: the TypeScript server's `get_parent` answers the parent entity (or
/// null), structuredContent `{"parent": …}`.
const WRAPPED: &[(&str, &str)] = &[("get_parent", "parent")];

/// A `CallToolResult` of the tool `name`: one text item; a failure has `isError: true` and
/// nothing else, a success has structuredContent and, when its text is a JSON object, the
/// same value (for one of [`WRAPPED`], under its key).
pub fn check_tool_result(name: &Value, result: &Value) {
    let content = result["content"]
        .as_array()
        .unwrap_or_else(|| panic!("no content: {result}"));
    assert_eq!(content.len(), 1, "{result}");
    assert_eq!(content[0]["type"], "text", "{result}");
    let text = content[0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {result}"));
    let obj = result.as_object().expect("object");
    assert_eq!(
        obj.len(),
        2,
        "content plus isError or structuredContent: {result}"
    );
    if result.get("isError").is_some() {
        assert_eq!(result["isError"], Value::Bool(true), "{result}");
        return;
    }
    let structured = result
        .get("structuredContent")
        .unwrap_or_else(|| panic!("success without structuredContent: {result}"));
    assert!(structured.is_object(), "{result}");
    if let Ok(parsed) = serde_json::from_str::<Value>(text)
        && parsed.is_object()
    {
        let content = match WRAPPED.iter().find(|(tool, _)| name == tool) {
            Some((_, key)) => &structured[key],
            None => structured,
        };
        assert_eq!(&parsed, content, "text and structuredContent differ");
    }
}
