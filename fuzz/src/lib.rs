//! What the fuzz targets share: an in-memory [`Log`] (after `core/tests/common`), a memory
//! file on a simulated disk for [`FileLog`], and the checks every reply must pass.

pub mod generate;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use mcp_memory_core::filelog::{Disk, FileLog};
use mcp_memory_core::graph::Graph;
use mcp_memory_core::json::parse_lenient;
use mcp_memory_core::mcp::GRAPH_URI;
use mcp_memory_core::record::{self, Record};
use mcp_memory_core::{Changes, Contents, Log, LogError, frame, jsonl};
use serde_json::{Map, Value};

// ---------------------------------------------------------------------------------------------
// MemLog
// ---------------------------------------------------------------------------------------------

/// What a [`MemLog`] holds; shared by the log a memory owns and the harness's handle.
#[derive(Debug)]
pub struct MemState {
    /// What the log holds now (foreign bytes until replaced, then records).
    pub contents: Contents,
    /// What another writer did that the memory has not seen yet.
    pub others: Option<Changes>,
    /// Failures to inject into the next call of each operation.
    pub fail_append: bool,
    /// See `fail_append`.
    pub fail_sync: bool,
    /// See `fail_append`.
    pub fail_replace: bool,
    /// See `fail_append`.
    pub fail_refresh: bool,
    replays: usize,
}

/// An in-memory [`Log`]. Clones share one state.
#[derive(Clone, Debug)]
pub struct MemLog(pub Rc<RefCell<MemState>>);

impl MemLog {
    /// A log holding `contents`.
    pub fn new(contents: Contents) -> Self {
        MemLog(Rc::new(RefCell::new(MemState {
            contents,
            others: None,
            fail_append: false,
            fail_sync: false,
            fail_replace: false,
            fail_refresh: false,
            replays: 0,
        })))
    }

    /// What the log holds now.
    pub fn contents(&self) -> Contents {
        self.0.borrow().contents.clone()
    }

    /// Whether another writer changed the log since the memory last refreshed.
    pub fn has_unseen_changes(&self) -> bool {
        self.0.borrow().others.is_some()
    }

    /// Appends a record as another process would: the memory sees it at its next refresh.
    /// Nothing happens while the log holds foreign bytes (no writer appends to those).
    pub fn append_as_other_writer(&self, entry: Vec<u8>) {
        let mut s = self.0.borrow_mut();
        match &mut s.contents {
            Contents::Records(r) => r.push(entry.clone()),
            Contents::Foreign(_) => return,
        }
        match &mut s.others {
            Some(Changes::Appended(r) | Changes::Replaced(r)) => r.push(entry),
            None => s.others = Some(Changes::Appended(vec![entry])),
        }
    }

    /// Replaces the whole log as another process would (a conversion or compaction).
    pub fn replace_as_other_writer(&self, entries: Vec<Vec<u8>>) {
        let mut s = self.0.borrow_mut();
        s.contents = Contents::Records(entries.clone());
        s.others = Some(Changes::Replaced(entries));
    }
}

impl Log for MemLog {
    fn replay(&mut self) -> Result<Contents, LogError> {
        let mut s = self.0.borrow_mut();
        s.replays += 1;
        assert_eq!(s.replays, 1, "Log::replay must be called only once");
        Ok(s.contents.clone())
    }

    fn refresh(&mut self) -> Result<Changes, LogError> {
        let mut s = self.0.borrow_mut();
        assert_eq!(s.replays, 1, "refresh before replay");
        if std::mem::take(&mut s.fail_refresh) {
            return Err(LogError("injected refresh failure".into()));
        }
        Ok(s.others.take().unwrap_or(Changes::Appended(Vec::new())))
    }

    fn append(&mut self, entry: &[u8]) -> Result<(), LogError> {
        let mut s = self.0.borrow_mut();
        assert_eq!(s.replays, 1, "append before replay");
        assert!(s.others.is_none(), "append before catching up");
        if std::mem::take(&mut s.fail_append) {
            return Err(LogError("injected append failure".into()));
        }
        match &mut s.contents {
            Contents::Records(r) => r.push(entry.to_vec()),
            Contents::Foreign(_) => return Err(LogError("the log holds foreign bytes".into())),
        }
        Ok(())
    }

    fn sync(&mut self) -> Result<(), LogError> {
        let mut s = self.0.borrow_mut();
        if std::mem::take(&mut s.fail_sync) {
            return Err(LogError("injected sync failure".into()));
        }
        Ok(())
    }

    fn replace(&mut self, entries: &[Vec<u8>]) -> Result<(), LogError> {
        let mut s = self.0.borrow_mut();
        if std::mem::take(&mut s.fail_replace) {
            return Err(LogError("injected replace failure".into()));
        }
        s.contents = Contents::Records(entries.to_vec());
        Ok(())
    }
}

/// The graph a restart over `contents` holds, as reference JSONL (`None` if it would not
/// open or be available), computed without a `Memory`: the records (or the JSONL file's
/// records) applied to an empty graph. `Memory::open` parses the tool catalog, which is most
/// of a fuzz iteration's time, so the targets use this for their many intermediate checks
/// and a real `Memory::open` where the open path itself is under test.
pub fn replayed(contents: &Contents) -> Option<Vec<u8>> {
    let parsed;
    let records = match contents {
        Contents::Records(r) => r,
        Contents::Foreign(bytes) => {
            parsed = jsonl::parse(bytes).ok()?.records();
            &parsed
        }
    };
    let mut graph = Graph::default();
    for r in records {
        graph.apply(&Record::decode(r).ok()?);
    }
    Some(jsonl::export(&graph))
}

/// The compacted log of the graph `contents` holds, as `Memory::export_log` writes it.
pub fn compacted_log(contents: &Contents) -> Option<Vec<u8>> {
    let parsed;
    let records = match contents {
        Contents::Records(r) => r,
        Contents::Foreign(bytes) => {
            parsed = jsonl::parse(bytes).ok()?.records();
            &parsed
        }
    };
    let mut graph = Graph::default();
    for r in records {
        graph.apply(&Record::decode(r).ok()?);
    }
    let records = record::snapshot(&graph);
    Some(frame::encode_log(records.iter().map(Vec::as_slice)))
}

// ---------------------------------------------------------------------------------------------
// A memory file on a simulated disk (one process)
// ---------------------------------------------------------------------------------------------

/// The files of a directory holding one memory file and its companions.
#[derive(Debug, Default)]
pub struct DirState {
    /// File name → content. The memory file is [`SimDisk::NAME`].
    pub files: HashMap<String, Vec<u8>>,
}

/// One process's view of a [`DirState`], for [`FileLog`]. The process never dies, so the
/// lock is always its own once taken.
#[derive(Clone, Debug)]
pub struct SimDisk(pub Rc<RefCell<DirState>>);

impl SimDisk {
    /// The memory file's name.
    pub const NAME: &'static str = "memory.jsonl";

    /// A directory holding a memory file with these bytes.
    pub fn with_file(bytes: &[u8]) -> Self {
        let mut files = HashMap::new();
        files.insert(Self::NAME.to_string(), bytes.to_vec());
        SimDisk(Rc::new(RefCell::new(DirState { files })))
    }

    /// The memory file's bytes.
    pub fn file(&self) -> Vec<u8> {
        self.0
            .borrow()
            .files
            .get(Self::NAME)
            .cloned()
            .unwrap_or_default()
    }

    /// The content of a companion file.
    pub fn companion(&self, name: &str) -> Option<Vec<u8>> {
        self.0.borrow().files.get(name).cloned()
    }

    fn io_err(what: &str) -> LogError {
        LogError(format!("{}: {what}", Self::NAME))
    }
}

impl Disk for SimDisk {
    fn name(&self) -> &str {
        Self::NAME
    }
    fn token(&self) -> &str {
        "1 fuzz"
    }
    fn size(&mut self) -> Result<u64, LogError> {
        Ok(self.file().len() as u64)
    }
    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, LogError> {
        let f = self.file();
        let end = (offset as usize)
            .checked_add(len)
            .ok_or(Self::io_err("overflow"))?;
        f.get(offset as usize..end)
            .map(<[u8]>::to_vec)
            .ok_or(Self::io_err("read past the end"))
    }
    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> Result<(), LogError> {
        let mut d = self.0.borrow_mut();
        let f = d.files.entry(Self::NAME.into()).or_default();
        let end = offset as usize + bytes.len();
        if f.len() < end {
            f.resize(end, 0);
        }
        f[offset as usize..end].copy_from_slice(bytes);
        Ok(())
    }
    fn set_len(&mut self, len: u64) -> Result<(), LogError> {
        let mut d = self.0.borrow_mut();
        d.files
            .entry(Self::NAME.into())
            .or_default()
            .resize(len as usize, 0);
        Ok(())
    }
    fn sync(&mut self) -> Result<(), LogError> {
        Ok(())
    }
    fn sync_now(&mut self) -> Result<(), LogError> {
        Ok(())
    }
    fn is_current(&mut self) -> Result<bool, LogError> {
        Ok(true)
    }
    fn reopen(&mut self) -> Result<(), LogError> {
        Ok(())
    }
    fn create_new(&mut self, name: &str, bytes: &[u8]) -> Result<bool, LogError> {
        let mut d = self.0.borrow_mut();
        if d.files.contains_key(name) {
            return Ok(false);
        }
        d.files.insert(name.into(), bytes.to_vec());
        Ok(true)
    }
    fn read_file(&mut self, name: &str) -> Result<Option<Vec<u8>>, LogError> {
        Ok(self.companion(name))
    }
    fn age_ms(&mut self, name: &str) -> Result<Option<u64>, LogError> {
        Ok(self.0.borrow().files.get(name).map(|_| 0))
    }
    fn rename(&mut self, from: &str, to: &str) -> Result<bool, LogError> {
        let mut d = self.0.borrow_mut();
        let Some(bytes) = d.files.remove(from) else {
            return Ok(false);
        };
        d.files.insert(to.into(), bytes);
        Ok(true)
    }
    fn link(&mut self, from: &str, to: &str) -> Result<bool, LogError> {
        let mut d = self.0.borrow_mut();
        if d.files.contains_key(to) {
            return Ok(false);
        }
        let bytes = d
            .files
            .get(from)
            .cloned()
            .ok_or(Self::io_err("no such file"))?;
        d.files.insert(to.into(), bytes);
        Ok(true)
    }
    fn remove(&mut self, name: &str) -> Result<(), LogError> {
        self.0.borrow_mut().files.remove(name);
        Ok(())
    }
    fn write_new(&mut self, name: &str, bytes: &[u8]) -> Result<(), LogError> {
        self.0
            .borrow_mut()
            .files
            .insert(name.into(), bytes.to_vec());
        Ok(())
    }
    fn keep_copy(&mut self, name: &str) -> Result<(), LogError> {
        let bytes = self.file();
        self.0.borrow_mut().files.insert(name.into(), bytes);
        Ok(())
    }
    fn install(&mut self, name: &str) -> Result<(), LogError> {
        self.rename(name, Self::NAME)?;
        Ok(())
    }
    fn alive(&mut self, _pid: u32) -> bool {
        true
    }
    fn sleep_ms(&mut self, _ms: u32) {
        panic!("a single process never waits for its own lock");
    }
}

/// A file log over `disk`, locked as a host locks it around `Memory::open`.
pub fn file_log(disk: &SimDisk) -> FileLog<SimDisk> {
    let mut log = FileLog::new(disk.clone());
    log.lock().expect("a single process always gets the lock");
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
