//! What the fuzz targets share: the core's in-memory log and disk (`mcp_memory_core::testing`),
//! replays computed without a memory, and the checks every reply must pass.

pub mod generate;

use mcp_memory_core::filelog::FileLog;
use mcp_memory_core::graph::Graph;
use mcp_memory_core::json::parse_lenient;
use mcp_memory_core::mcp::GRAPH_URI;
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
    let id = match obj.get("id") {
        Some(Value::String(s)) => Value::String(s.clone()),
        Some(Value::Number(n)) => {
            let Some(f) = n.as_f64() else {
                return Incoming::Silent;
            };
            if f.fract() != 0.0 || f.abs() > MAX_SAFE_ID {
                return Incoming::Silent;
            }
            Value::from(f as i64)
        }
        _ => return Incoming::Silent,
    };
    Incoming::Request {
        id,
        method: method.clone(),
        params,
    }
}

/// The notification a subscriber gets when the graph may have changed.
pub fn is_updated_notification(v: &Value) -> bool {
    v.get("id").is_none()
        && v["jsonrpc"] == "2.0"
        && v["method"] == "notifications/resources/updated"
        && v["params"]["uri"] == GRAPH_URI
}

/// One exchange as the oracle sees it.
pub struct Exchange {
    /// The reply, if the message got one.
    pub reply: Option<Value>,
    /// Notifications sent before it.
    pub notifications: usize,
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
/// it; anything else gets nothing.
pub fn check_exchange(line: &str, incoming: &Incoming, out: &[String]) -> Exchange {
    let msgs: Vec<Value> = out
        .iter()
        .map(|o| {
            assert!(!o.contains('\n'), "an outgoing message spans lines: {o}");
            serde_json::from_str(o)
                .unwrap_or_else(|e| panic!("outgoing message is not JSON ({e}): {o}"))
        })
        .collect();
    let Incoming::Request { id, method, .. } = incoming else {
        assert!(
            msgs.is_empty(),
            "no reply expected to {line:?}, got {out:?}"
        );
        return Exchange {
            reply: None,
            notifications: 0,
        };
    };
    let (reply, before) = msgs
        .split_last()
        .unwrap_or_else(|| panic!("request {line:?} got no reply"));
    for n in before {
        assert!(
            is_updated_notification(n),
            "before the reply of {line:?}: {n}"
        );
    }
    assert!(before.len() <= 2, "too many notifications: {out:?}");
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
    match (obj.get("result"), obj.get("error")) {
        (Some(result), None) => {
            assert!(result.is_object(), "{reply}");
            if method == "tools/call" {
                check_tool_result(result);
            }
        }
        (None, Some(error)) => {
            assert!(error["code"].is_i64(), "{reply}");
            assert!(error["message"].is_string(), "{reply}");
            assert_eq!(error.as_object().map(Map::len), Some(2), "{reply}");
        }
        _ => panic!("reply has neither result nor error: {reply}"),
    }
    Exchange {
        reply: Some(reply.clone()),
        notifications: before.len(),
    }
}

/// A `CallToolResult`: one text item; a failure has `isError: true` and nothing else, a
/// success has structuredContent and, when its text is JSON, the same value.
pub fn check_tool_result(result: &Value) {
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
        assert_eq!(&parsed, structured, "text and structuredContent differ");
    }
}
