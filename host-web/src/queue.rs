//! A memory whose log lives in an asynchronous store (IndexedDB in browsers).
//!
//! The core's [`Log`] is synchronous and a store like IndexedDB is not, so the work is split
//! around each call: the caller reads the store first and hands in what it holds
//! ([`QueueMemory::open`]) or what other writers added since ([`QueueMemory::deliver`]),
//! makes the call, then takes what the call wrote ([`QueueMemory::take_writes`]) and stores
//! it — in one store transaction, before the reply is released. Record bytes are the core's:
//! the store keeps each record payload as one value.

use mcp_memory_core::log::{Pieces, page_of};
use mcp_memory_core::{Changes, Contents, Intent, Log, LogError, Page, Server};
use wasm_bindgen::prelude::*;

use crate::{js_error, lines, memory_error, now};

/// The [`Log`] a [`QueueMemory`] writes to: records queued for the caller to store.
#[derive(Default)]
struct QueueLog {
    /// What the store held at open (taken by the first replay).
    opened: Vec<Vec<u8>>,
    /// What other writers did, handed in for the next refresh.
    delivered: Option<Changes>,
    /// A whole new log to store in place of the old one (then `appended` after it).
    replacement: Option<Vec<Vec<u8>>>,
    /// Records to store after those already stored.
    appended: Vec<Vec<u8>>,
    /// Every record the log holds as this memory has seen it (the history tools read it;
    /// the store cannot be read synchronously).
    held: Vec<Vec<u8>>,
    /// A replacement being written.
    pieces: Pieces,
}

impl Log for QueueLog {
    fn replay(&mut self) -> Result<Contents, LogError> {
        self.held = self.opened.clone();
        Ok(Contents::Records(core::mem::take(&mut self.opened)))
    }
    fn refresh(&mut self, _: Intent) -> Result<Changes, LogError> {
        let changes = self
            .delivered
            .take()
            .unwrap_or(Changes::Appended(Vec::new()));
        match &changes {
            Changes::Appended(records) => self.held.extend_from_slice(records),
            Changes::Replaced { entries, .. } => self.held.clone_from(entries),
        }
        Ok(changes)
    }
    fn append(&mut self, entry: &[u8]) -> Result<(), LogError> {
        self.appended.push(entry.to_vec());
        self.held.push(entry.to_vec());
        Ok(())
    }
    fn entries(&mut self, from: u64, budget: u32) -> Result<Page, LogError> {
        Ok(page_of(&self.held, from, budget))
    }
    /// Durability is the caller's: the reply waits for the store transaction.
    fn sync(&mut self) -> Result<(), LogError> {
        Ok(())
    }
    fn replace_piece(
        &mut self,
        entries: &[Vec<u8>],
        first: bool,
        last: bool,
    ) -> Result<(), LogError> {
        if let Some(whole) = self.pieces.put(entries, first, last) {
            self.held.clone_from(&whole);
            self.replacement = Some(whole);
            self.appended.clear();
        }
        Ok(())
    }
    /// A page has no file system: every path is refused.
    fn read_named(&mut self, path: &str) -> Result<Vec<u8>, LogError> {
        Err(LogError(format!(
            "cannot read {path}: the browser memory (IndexedDB) has no file system and reads no named files; hand the file's contents to BrowserMemory.importFile instead"
        )))
    }
}

fn payloads(records: Vec<js_sys::Uint8Array>) -> Vec<Vec<u8>> {
    records.iter().map(js_sys::Uint8Array::to_vec).collect()
}

fn arrays(records: &[Vec<u8>]) -> js_sys::Array {
    records
        .iter()
        .map(|r| js_sys::Uint8Array::from(r.as_slice()))
        .collect()
}

/// A memory over records that JavaScript loads from and stores to an asynchronous store.
#[wasm_bindgen]
pub struct QueueMemory {
    server: Server<QueueLog>,
}

#[wasm_bindgen]
impl QueueMemory {
    /// Replays the record payloads a store holds, oldest first. Throws if one is not a
    /// record this version can read (naming its position).
    pub fn open(records: Vec<js_sys::Uint8Array>) -> Result<QueueMemory, JsError> {
        let log = QueueLog {
            opened: payloads(records),
            ..QueueLog::default()
        };
        let (server, _) = Server::open(log).map_err(js_error)?;
        Ok(QueueMemory { server })
    }

    /// Names the actor this memory's changes are made for (stamped on each, beside the
    /// client and session), or none.
    #[wasm_bindgen(js_name = setActor)]
    pub fn set_actor(&mut self, actor: Option<String>) {
        self.server.set_actor(actor);
    }

    /// Sets how many days of history compaction keeps before the latest change (0: none;
    /// 30 unless set).
    #[wasm_bindgen(js_name = setHistoryDays)]
    pub fn set_history_days(&mut self, days: u32) {
        self.server.set_history_days(days);
    }

    /// Lists and answers the tools of `profile` (reference, default, rust, memory-mcp,
    /// mcp-memory-py, all) adjusted by `tools` (`+name,-name`). Throws, changing nothing,
    /// on an unknown profile or tool. A memory lists every tool until this is called.
    #[wasm_bindgen(js_name = setTools)]
    pub fn set_tools(&mut self, profile: &str, tools: &str) -> Result<(), JsError> {
        self.server.set_tools(profile, tools).map_err(js_error)
    }

    /// Gives semantic and hybrid search their embedding table: `source()` returns its bytes
    /// (a `Uint8Array`), or anything else if there is none. It is called at most once, when
    /// a search first ranks by meaning.
    #[wasm_bindgen(js_name = setEmbeddingSource)]
    pub fn set_embedding_source(&mut self, source: js_sys::Function) {
        let source = crate::table_source(source);
        self.server.memory_mut().set_embedding_source(source);
    }

    /// Hands in what other writers stored since this memory last looked: records appended
    /// after the ones it has seen, or — if `replaced` — every record of a store that was
    /// rewritten. The next call applies them before it does anything else.
    pub fn deliver(&mut self, records: Vec<js_sys::Uint8Array>, replaced: bool) {
        let records = payloads(records);
        self.server.memory_mut().log_mut().delivered = Some(if replaced {
            // Whole: `held` keeps every record for the history tools.
            Changes::Replaced {
                skipped_bytes: 0,
                entries: records,
            }
        } else {
            Changes::Appended(records)
        });
    }

    /// Handles one MCP (JSON-RPC 2.0) message; returns the messages to send, in order. They
    /// must not be sent before [`QueueMemory::take_writes`]'s records are stored.
    pub fn handle(&mut self, message: &str) -> Vec<String> {
        self.server.handle_in(0, now(), message)
    }

    /// [`QueueMemory::handle`] for one stdio line as bytes: the replies, each ending in `\n`.
    #[wasm_bindgen(js_name = handleLine)]
    pub fn handle_line(&mut self, line: &[u8]) -> Vec<u8> {
        lines(
            self.server
                .handle_in(0, now(), &String::from_utf8_lossy(line)),
        )
    }

    /// What the calls since the last take wrote: `{ replaced, records }`. If `replaced`, the
    /// store must be cleared and `records` are all it holds; otherwise `records` follow the
    /// stored ones. Store them in one transaction, in order.
    #[wasm_bindgen(js_name = takeWrites)]
    pub fn take_writes(&mut self) -> Result<js_sys::Object, JsError> {
        let log = self.server.memory_mut().log_mut();
        let appended = core::mem::take(&mut log.appended);
        let (replaced, mut records) = match log.replacement.take() {
            Some(all) => (true, all),
            None => (false, Vec::new()),
        };
        records.extend(appended);
        let writes = js_sys::Object::new();
        let set = |key: &str, value: &JsValue| {
            js_sys::Reflect::set(&writes, &JsValue::from_str(key), value)
                .map(drop)
                .map_err(|_| JsError::new("cannot build the writes object"))
        };
        set("replaced", &JsValue::from_bool(replaced))?;
        set("records", &arrays(&records))?;
        Ok(writes)
    }

    /// Readies the memory for the end of this page's use of it: logs the usage counts not
    /// logged yet (stored with [`QueueMemory::take_writes`], like any call's records).
    /// Nothing acknowledged depends on it.
    pub fn close(&mut self) {
        self.server.memory_mut().close();
    }

    /// The graph in the reference server's JSONL file format.
    #[wasm_bindgen(js_name = exportJsonl)]
    pub fn export_jsonl(&mut self) -> Result<Vec<u8>, JsValue> {
        self.server
            .memory_mut()
            .export_jsonl()
            .map_err(memory_error)
    }

    /// The graph in the TypeScript "Memory MCP" server's JSONL format.
    #[wasm_bindgen(js_name = exportMemoryMcp)]
    pub fn export_memory_mcp(&mut self) -> Result<Vec<u8>, JsValue> {
        self.server
            .memory_mut()
            .export_memory_mcp()
            .map_err(memory_error)
    }

    /// The graph as a compacted memory log file (the format of the native server's files).
    #[wasm_bindgen(js_name = exportLog)]
    pub fn export_log(&mut self) -> Result<Vec<u8>, JsValue> {
        self.server.memory_mut().export_log().map_err(memory_error)
    }

    /// Rewrites the log as the graph's records (history dropped); returns how many. The
    /// whole new log is then waiting in [`QueueMemory::take_writes`] as a replacement.
    pub fn compact(&mut self) -> Result<usize, JsValue> {
        self.server.memory_mut().compact().map_err(memory_error)
    }

    /// Merges a memory file (log or reference JSONL) into the memory; returns a summary.
    /// Its records are then waiting in [`QueueMemory::take_writes`].
    #[wasm_bindgen(js_name = importFile)]
    pub fn import_file(&mut self, data: &[u8]) -> Result<String, JsValue> {
        self.server.import(data, now()).map_err(memory_error)
    }
}
