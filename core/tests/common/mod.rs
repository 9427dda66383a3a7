//! Shared test helpers: in-memory logs (one plain, one that simulates power cuts), a small
//! deterministic RNG, and functions that speak MCP to a [`Memory`].

#![allow(dead_code)]

pub mod model;
pub mod ops;

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use mcp_memory_core::{Changes, Contents, Log, LogError, Memory, frame};
use serde_json::{Value, json};

/// The reference server's nine tools, in its listing order.
pub const REFERENCE_TOOLS: [&str; 9] = [
    "create_entities",
    "create_relations",
    "add_observations",
    "delete_entities",
    "delete_observations",
    "delete_relations",
    "read_graph",
    "search_nodes",
    "open_nodes",
];

/// Proptest cases: `PROPTEST_CASES` when set (for long runs), else `default`.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

// ---------------------------------------------------------------------------------------------
// MemLog
// ---------------------------------------------------------------------------------------------

/// What a [`MemLog`] holds and how it has been used. Shared between the log the memory owns
/// and the handles the test keeps.
#[derive(Debug)]
pub struct MemState {
    /// What the log holds now (foreign bytes until replaced, then records).
    pub contents: Contents,
    /// Record payloads appended since opening, in order (also included in `contents`).
    pub appended: Vec<Vec<u8>>,
    /// Number of records durable after the last successful `sync`.
    pub synced_records: usize,
    /// Calls of each operation that succeeded.
    pub replays: usize,
    /// Successful appends.
    pub appends: usize,
    /// Successful syncs.
    pub syncs: usize,
    /// Successful replaces.
    pub replaces: usize,
    /// Failures to inject into the next call of each operation.
    pub fail_append: Option<String>,
    /// See `fail_append`.
    pub fail_sync: Option<String>,
    /// See `fail_append`.
    pub fail_replace: Option<String>,
    /// What another writer did since the memory last refreshed, not yet seen by it.
    pub others: Option<Changes>,
    /// Calls of `refresh`.
    pub refreshes: usize,
}

/// An in-memory [`Log`] that keeps record payloads. Clones share one state, so a test keeps a
/// clone to look inside the log it handed to a [`Memory`].
#[derive(Clone, Debug)]
pub struct MemLog(pub Rc<RefCell<MemState>>);

impl Default for MemLog {
    fn default() -> Self {
        Self::new()
    }
}

impl MemLog {
    /// An empty log.
    pub fn new() -> Self {
        Self::starting_with(Contents::Records(Vec::new()))
    }

    /// A log that already holds `contents`.
    pub fn starting_with(contents: Contents) -> Self {
        let synced_records = match &contents {
            Contents::Records(r) => r.len(),
            Contents::Foreign(_) => 0,
        };
        MemLog(Rc::new(RefCell::new(MemState {
            contents,
            appended: Vec::new(),
            synced_records,
            replays: 0,
            appends: 0,
            syncs: 0,
            replaces: 0,
            fail_append: None,
            fail_sync: None,
            fail_replace: None,
            others: None,
            refreshes: 0,
        })))
    }

    /// A log holding a reference JSONL file.
    pub fn foreign(bytes: &[u8]) -> Self {
        Self::starting_with(Contents::Foreign(bytes.to_vec()))
    }

    /// The record payloads the log holds now (panics if it still holds foreign bytes).
    pub fn records(&self) -> Vec<Vec<u8>> {
        match &self.0.borrow().contents {
            Contents::Records(r) => r.clone(),
            Contents::Foreign(_) => panic!("the log still holds foreign bytes"),
        }
    }

    /// What the log holds now.
    pub fn contents(&self) -> Contents {
        self.0.borrow().contents.clone()
    }

    /// Number of records the log holds now.
    pub fn len(&self) -> usize {
        self.records().len()
    }

    /// Successful appends so far.
    pub fn appends(&self) -> usize {
        self.0.borrow().appends
    }

    /// Successful syncs so far.
    pub fn syncs(&self) -> usize {
        self.0.borrow().syncs
    }

    /// Successful replaces so far.
    pub fn replaces(&self) -> usize {
        self.0.borrow().replaces
    }

    /// Makes the next append fail with `message`.
    pub fn fail_next_append(&self, message: &str) {
        self.0.borrow_mut().fail_append = Some(message.to_string());
    }

    /// Makes the next sync fail with `message`.
    pub fn fail_next_sync(&self, message: &str) {
        self.0.borrow_mut().fail_sync = Some(message.to_string());
    }

    /// Makes the next replace fail with `message`.
    pub fn fail_next_replace(&self, message: &str) {
        self.0.borrow_mut().fail_replace = Some(message.to_string());
    }

    /// Appends a record as another process would: the memory sees it at its next refresh.
    pub fn append_as_other_writer(&self, entry: Vec<u8>) {
        let mut s = self.0.borrow_mut();
        match &mut s.contents {
            Contents::Records(r) => r.push(entry.clone()),
            Contents::Foreign(_) => panic!("another writer cannot append to foreign bytes"),
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

    /// Calls of `refresh` so far.
    pub fn refreshes(&self) -> usize {
        self.0.borrow().refreshes
    }

    /// A fresh log holding what this one holds now (a restart of the host).
    pub fn reopened(&self) -> MemLog {
        MemLog::starting_with(self.contents())
    }
}

impl Log for MemLog {
    fn replay(&mut self) -> Result<Contents, LogError> {
        let mut s = self.0.borrow_mut();
        s.replays += 1;
        assert_eq!(s.replays, 1, "Log::replay must be called only once");
        assert_eq!(
            (s.appends, s.syncs, s.replaces),
            (0, 0, 0),
            "Log::replay must come before any other operation"
        );
        Ok(s.contents.clone())
    }

    fn refresh(&mut self) -> Result<Changes, LogError> {
        let mut s = self.0.borrow_mut();
        assert_eq!(s.replays, 1, "refresh before replay");
        s.refreshes += 1;
        Ok(s.others.take().unwrap_or(Changes::Appended(Vec::new())))
    }

    fn append(&mut self, entry: &[u8]) -> Result<(), LogError> {
        let mut s = self.0.borrow_mut();
        assert_eq!(s.replays, 1, "append before replay");
        if let Some(e) = s.fail_append.take() {
            return Err(LogError(e));
        }
        match &mut s.contents {
            Contents::Records(r) => r.push(entry.to_vec()),
            Contents::Foreign(_) => {
                return Err(LogError("the log holds foreign bytes".into()));
            }
        }
        s.appended.push(entry.to_vec());
        s.appends += 1;
        Ok(())
    }

    fn sync(&mut self) -> Result<(), LogError> {
        let mut s = self.0.borrow_mut();
        if let Some(e) = s.fail_sync.take() {
            return Err(LogError(e));
        }
        s.syncs += 1;
        s.synced_records = match &s.contents {
            Contents::Records(r) => r.len(),
            Contents::Foreign(_) => 0,
        };
        Ok(())
    }

    fn replace(&mut self, entries: &[Vec<u8>]) -> Result<(), LogError> {
        let mut s = self.0.borrow_mut();
        if let Some(e) = s.fail_replace.take() {
            return Err(LogError(e));
        }
        s.contents = Contents::Records(entries.to_vec());
        s.synced_records = entries.len();
        s.replaces += 1;
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// A small deterministic RNG (splitmix64), seeded by proptest.
// ---------------------------------------------------------------------------------------------

/// A deterministic random number generator for crash simulation.
#[derive(Clone, Debug)]
pub struct CrashRng(u64);

impl CrashRng {
    /// A generator with this seed.
    pub fn new(seed: u64) -> Self {
        CrashRng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..=max`.
    pub fn up_to(&mut self, max: usize) -> usize {
        (self.next_u64() % (max as u64 + 1)) as usize
    }

    /// True with probability 1/n.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.next_u64().is_multiple_of(n)
    }
}

// ---------------------------------------------------------------------------------------------
// CrashLog
// ---------------------------------------------------------------------------------------------

/// The bytes of a [`CrashLog`] and how much of them is durable.
#[derive(Debug)]
pub struct CrashState {
    /// The whole log file as written so far: header and frames.
    pub bytes: Vec<u8>,
    /// Length of the prefix of `bytes` that a power cut cannot lose.
    pub durable: usize,
    /// End offset of every whole frame in `bytes`, in order.
    pub frame_ends: Vec<usize>,
    /// Whether `sync` makes the bytes durable. `false` models a host whose durability
    /// policy returns from `sync` at once and flushes later.
    pub sync_is_durable: bool,
    /// Number of `sync` calls.
    pub syncs: usize,
    /// Records handed out by `replay`, taken once.
    pub replay: Option<Vec<Vec<u8>>>,
}

/// A [`Log`] kept as the bytes of a log file, in the spirit of redb's crash tests: it knows
/// which prefix has been synced, and [`CrashLog::crash`] returns what a disk might hold
/// after a power cut.
#[derive(Clone, Debug)]
pub struct CrashLog(pub Rc<RefCell<CrashState>>);

impl Default for CrashLog {
    fn default() -> Self {
        Self::new()
    }
}

impl CrashLog {
    /// A new log file: just the header, already durable (the host creates the file).
    pub fn new() -> Self {
        Self::from_disk(&frame::header())
    }

    /// A log file just created by the host: the header is written but, like any write
    /// before the first sync, not yet durable.
    pub fn new_file() -> Self {
        let log = Self::new();
        log.0.borrow_mut().durable = 0;
        log
    }

    /// The log a host opens after a restart from these file bytes: a new log for an empty
    /// file; otherwise it scans them, cuts off a torn tail as the host does, and hands the
    /// records to the memory. Panics when the bytes are not a readable log.
    pub fn from_disk(bytes: &[u8]) -> Self {
        if bytes.is_empty() {
            return Self::new(); // an empty file is a new log
        }
        let scan = frame::scan(bytes).unwrap_or_else(|e| panic!("the log does not scan: {e}"));
        let records: Vec<Vec<u8>> = scan.records.iter().map(|r| r.to_vec()).collect();
        let mut kept = bytes[..scan.valid_len].to_vec();
        if kept.is_empty() {
            kept = frame::header().to_vec();
        }
        let frame_ends = frame_ends(&kept);
        CrashLog(Rc::new(RefCell::new(CrashState {
            durable: kept.len(),
            bytes: kept,
            frame_ends,
            sync_is_durable: true,
            syncs: 0,
            replay: Some(records),
        })))
    }

    /// Chooses whether `sync` makes appended bytes durable from now on.
    pub fn set_sync_is_durable(&self, durable: bool) {
        self.0.borrow_mut().sync_is_durable = durable;
    }

    /// The whole file as written (what a clean shutdown leaves).
    pub fn bytes(&self) -> Vec<u8> {
        self.0.borrow().bytes.clone()
    }

    /// Number of whole frames written.
    pub fn frames(&self) -> usize {
        self.0.borrow().frame_ends.len()
    }

    /// Number of whole frames inside the durable prefix.
    pub fn durable_frames(&self) -> usize {
        let s = self.0.borrow();
        s.frame_ends.iter().filter(|&&end| end <= s.durable).count()
    }

    /// Whether every written byte is durable.
    pub fn all_durable(&self) -> bool {
        let s = self.0.borrow();
        s.durable == s.bytes.len()
    }

    /// Number of `sync` calls.
    pub fn syncs(&self) -> usize {
        self.0.borrow().syncs
    }

    /// What the disk might hold after a power cut now: the durable prefix, then an arbitrary
    /// prefix of the bytes written after it (possibly ending mid-frame), then possibly zeros
    /// where the file had grown but the data never reached the disk.
    pub fn crash(&self, rng: &mut CrashRng) -> Vec<u8> {
        let s = self.0.borrow();
        let unsynced = &s.bytes[s.durable..];
        let (kept, zeros) = match rng.up_to(3) {
            0 => (0, 0),
            1 => (unsynced.len(), 0),
            2 => (rng.up_to(unsynced.len()), 0),
            _ => {
                let kept = rng.up_to(unsynced.len());
                (kept, rng.up_to(unsynced.len() - kept))
            }
        };
        let mut image = s.bytes[..s.durable + kept].to_vec();
        image.resize(image.len() + zeros, 0);
        image
    }

    /// The durable prefix alone: what survives a power cut that loses everything unsynced.
    pub fn crash_losing_everything_unsynced(&self) -> Vec<u8> {
        let s = self.0.borrow();
        s.bytes[..s.durable].to_vec()
    }
}

/// End offsets of the frames of a well-formed log.
fn frame_ends(log: &[u8]) -> Vec<usize> {
    let scan = frame::scan(log).expect("well-formed log");
    assert!(scan.torn.is_none());
    let mut at = frame::HEADER_LEN;
    scan.records
        .iter()
        .map(|r| {
            at += frame::FRAME_HEADER_LEN + r.len();
            at
        })
        .collect()
}

impl Log for CrashLog {
    fn replay(&mut self) -> Result<Contents, LogError> {
        let records = self
            .0
            .borrow_mut()
            .replay
            .take()
            .expect("Log::replay must be called only once");
        Ok(Contents::Records(records))
    }

    fn refresh(&mut self) -> Result<Changes, LogError> {
        Ok(Changes::Appended(Vec::new()))
    }

    fn append(&mut self, entry: &[u8]) -> Result<(), LogError> {
        let mut s = self.0.borrow_mut();
        frame::encode_frame(entry, &mut s.bytes);
        let end = s.bytes.len();
        s.frame_ends.push(end);
        Ok(())
    }

    fn sync(&mut self) -> Result<(), LogError> {
        let mut s = self.0.borrow_mut();
        s.syncs += 1;
        if s.sync_is_durable {
            s.durable = s.bytes.len();
        }
        Ok(())
    }

    fn replace(&mut self, entries: &[Vec<u8>]) -> Result<(), LogError> {
        let mut s = self.0.borrow_mut();
        s.bytes = frame::encode_log(entries.iter().map(Vec::as_slice));
        s.durable = s.bytes.len();
        s.frame_ends = frame_ends(&s.bytes);
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Speaking MCP
// ---------------------------------------------------------------------------------------------

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Opens a memory over `log`, failing the test if it cannot be opened.
pub fn open<L: Log>(log: L) -> Memory<L> {
    match Memory::open(log) {
        Ok((memory, _warnings)) => memory,
        Err(e) => panic!("Memory::open failed: {e}"),
    }
}

/// Opens a memory over `log` and returns its warnings too.
pub fn open_with_warnings<L: Log>(log: L) -> (Memory<L>, Vec<String>) {
    Memory::open(log).unwrap_or_else(|e| panic!("Memory::open failed: {e}"))
}

/// Sends one raw line and parses every line the memory sends back.
pub fn send<L: Log>(memory: &mut Memory<L>, line: &str) -> Vec<Value> {
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
pub fn request_all<L: Log>(memory: &mut Memory<L>, method: &str, params: Value) -> Vec<Value> {
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
pub fn request<L: Log>(memory: &mut Memory<L>, method: &str, params: Value) -> Value {
    request_all(memory, method, params)
        .pop()
        .expect("a request gets a reply")
}

/// Calls a tool and returns every message sent back, the reply last.
pub fn call_all<L: Log>(memory: &mut Memory<L>, tool: &str, args: Value) -> Vec<Value> {
    request_all(
        memory,
        "tools/call",
        json!({"name": tool, "arguments": args}),
    )
}

/// Calls a tool and returns the request id and the raw lines sent back.
pub fn call_raw<L: Log>(memory: &mut Memory<L>, tool: &str, args: Value) -> (u64, Vec<String>) {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let line = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                      "params": {"name": tool, "arguments": args}})
    .to_string();
    (id, memory.handle(&line))
}

/// Calls a tool and returns its `CallToolResult`.
pub fn call<L: Log>(memory: &mut Memory<L>, tool: &str, args: Value) -> Value {
    let reply = call_all(memory, tool, args).pop().expect("reply");
    match reply.get("result") {
        Some(result) => result.clone(),
        None => panic!("tools/call got a JSON-RPC error: {reply}"),
    }
}

/// Calls a tool that must succeed and returns its structuredContent, checking the envelope:
/// one text item holding the pretty JSON of the content and no `isError` key.
pub fn call_ok<L: Log>(memory: &mut Memory<L>, tool: &str, args: Value) -> Value {
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
    result["structuredContent"].clone()
}

/// Calls a tool that must succeed once per 1,000 `items` (the per-request limit), passing
/// them as the argument `key`.
pub fn call_in_chunks<L: Log>(memory: &mut Memory<L>, tool: &str, key: &str, items: Vec<Value>) {
    for chunk in items.chunks(1000) {
        call_ok(memory, tool, json!({ key: chunk }));
    }
}

/// Calls a tool that must fail with a tool error and returns the error text.
pub fn call_err<L: Log>(memory: &mut Memory<L>, tool: &str, args: Value) -> String {
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
pub fn graph<L: Log>(memory: &mut Memory<L>) -> Value {
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
