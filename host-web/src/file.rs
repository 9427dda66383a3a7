//! A memory kept in a file whose I/O JavaScript does (Node's `fs`): the npm package's
//! server and its `Memory` class. Framing, recovery and the lock protocol are the core's
//! [`FileLog`]; JavaScript supplies only the raw operations ([`JsDisk`]).

use mcp_memory_core::filelog::{Disk, FileLog};
use mcp_memory_core::log::IndexReader;
use mcp_memory_core::{LogError, Server};
use wasm_bindgen::prelude::*;

use crate::{js_error, lines, log_error, memory_error, now};

#[wasm_bindgen]
extern "C" {
    /// A memory file's raw operations, in JavaScript. Each method does what the
    /// [`Disk`] method of the same name (in camelCase) documents, and throws on failure.
    pub type JsDisk;

    #[wasm_bindgen(method, catch)]
    fn name(this: &JsDisk) -> Result<String, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn token(this: &JsDisk) -> Result<String, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn size(this: &JsDisk) -> Result<f64, JsValue>;
    #[wasm_bindgen(method, catch, js_name = readInto)]
    fn read_into(this: &JsDisk, offset: f64, buf: &mut [u8]) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = writeAt)]
    fn write_at(this: &JsDisk, offset: f64, bytes: &[u8]) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = setLen)]
    fn set_len(this: &JsDisk, len: f64) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn sync(this: &JsDisk) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = syncNow)]
    fn sync_now(this: &JsDisk) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = isCurrent)]
    fn is_current(this: &JsDisk) -> Result<bool, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn reopen(this: &JsDisk) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = createNew)]
    fn create_new(this: &JsDisk, name: &str, bytes: &[u8]) -> Result<bool, JsValue>;
    #[wasm_bindgen(method, catch, js_name = readFile)]
    fn read_file(this: &JsDisk, name: &str) -> Result<Option<js_sys::Uint8Array>, JsValue>;
    #[wasm_bindgen(method, catch, js_name = ageMs)]
    fn age_ms(this: &JsDisk, name: &str) -> Result<Option<f64>, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn rename(this: &JsDisk, from: &str, to: &str) -> Result<bool, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn link(this: &JsDisk, from: &str, to: &str) -> Result<bool, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn remove(this: &JsDisk, name: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = writeNew)]
    fn write_new(
        this: &JsDisk,
        name: &str,
        at: f64,
        bytes: &[u8],
        done: bool,
    ) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = writePart)]
    fn write_part(this: &JsDisk, name: &str, offset: f64, bytes: &[u8]) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = readPart)]
    fn read_part(
        this: &JsDisk,
        name: &str,
        offset: f64,
        len: u32,
    ) -> Result<Option<js_sys::Uint8Array>, JsValue>;
    #[wasm_bindgen(method, catch, js_name = keepCopy)]
    fn keep_copy(this: &JsDisk, name: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn install(this: &JsDisk, name: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = readNamed)]
    fn read_named(this: &JsDisk, path: &str) -> Result<js_sys::Uint8Array, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn rescope(
        this: &JsDisk,
        inside_dir: &str,
        inside_file: &str,
        beside: &str,
    ) -> Result<(), JsValue>;
    #[wasm_bindgen(method)]
    fn alive(this: &JsDisk, pid: u32) -> bool;
    #[wasm_bindgen(method, js_name = sleepMs)]
    fn sleep_ms(this: &JsDisk, ms: u32);
}

/// [`JsDisk`] as a [`Disk`], with the name and token read once.
struct JsFile {
    js: JsDisk,
    name: String,
    token: String,
}

impl Disk for JsFile {
    fn name(&self) -> &str {
        &self.name
    }
    fn token(&self) -> &str {
        &self.token
    }
    fn size(&mut self) -> Result<u64, LogError> {
        self.js.size().map(|n| n as u64).map_err(log_error)
    }
    /// Read by JS straight into the engine's memory: a read of a page or a checkpoint
    /// leaves no buffer for the JS garbage collector (they piled up between collections,
    /// megabytes of RSS that the allocator kept).
    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, LogError> {
        let mut bytes = vec![0; len];
        (self.js.read_into(offset as f64, &mut bytes)).map_err(log_error)?;
        Ok(bytes)
    }
    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> Result<(), LogError> {
        self.js.write_at(offset as f64, bytes).map_err(log_error)
    }
    fn set_len(&mut self, len: u64) -> Result<(), LogError> {
        self.js.set_len(len as f64).map_err(log_error)
    }
    fn sync(&mut self) -> Result<(), LogError> {
        self.js.sync().map_err(log_error)
    }
    fn sync_now(&mut self) -> Result<(), LogError> {
        self.js.sync_now().map_err(log_error)
    }
    fn is_current(&mut self) -> Result<bool, LogError> {
        self.js.is_current().map_err(log_error)
    }
    fn reopen(&mut self) -> Result<(), LogError> {
        self.js.reopen().map_err(log_error)
    }
    fn create_new(&mut self, name: &str, bytes: &[u8]) -> Result<bool, LogError> {
        self.js.create_new(name, bytes).map_err(log_error)
    }
    fn read_file(&mut self, name: &str) -> Result<Option<Vec<u8>>, LogError> {
        let bytes = self.js.read_file(name).map_err(log_error)?;
        Ok(bytes.map(|b| b.to_vec()))
    }
    fn age_ms(&mut self, name: &str) -> Result<Option<u64>, LogError> {
        let age = self.js.age_ms(name).map_err(log_error)?;
        Ok(age.map(|ms| ms.max(0.0) as u64))
    }
    fn rename(&mut self, from: &str, to: &str) -> Result<bool, LogError> {
        self.js.rename(from, to).map_err(log_error)
    }
    fn link(&mut self, from: &str, to: &str) -> Result<bool, LogError> {
        self.js.link(from, to).map_err(log_error)
    }
    fn remove(&mut self, name: &str) -> Result<(), LogError> {
        self.js.remove(name).map_err(log_error)
    }
    fn write_new(&mut self, name: &str, at: u64, bytes: &[u8], done: bool) -> Result<(), LogError> {
        (self.js.write_new(name, at as f64, bytes, done)).map_err(log_error)
    }
    fn write_part(&mut self, name: &str, offset: u64, bytes: &[u8]) -> Result<(), LogError> {
        (self.js.write_part(name, offset as f64, bytes)).map_err(log_error)
    }
    fn part_reader(&mut self, name: &str) -> IndexReader {
        let js: JsDisk = JsValue::clone(&self.js).unchecked_into();
        let name = name.to_string();
        Box::new(move |at, len| {
            let bytes = js.read_part(&name, at as f64, len).map_err(log_error)?;
            Ok(bytes.map(|b| b.to_vec()))
        })
    }
    fn keep_copy(&mut self, name: &str) -> Result<(), LogError> {
        self.js.keep_copy(name).map_err(log_error)
    }
    fn install(&mut self, name: &str) -> Result<(), LogError> {
        self.js.install(name).map_err(log_error)
    }
    fn read_named(&mut self, path: &str) -> Result<Vec<u8>, LogError> {
        let bytes = self.js.read_named(path).map_err(log_error)?;
        Ok(bytes.to_vec())
    }
    fn alive(&mut self, pid: u32) -> bool {
        self.js.alive(pid)
    }
    /// JavaScript opens `inside_file` if `inside_dir` exists, else `beside` relative to the
    /// directory of the file it opened first (`core::roots::places`).
    fn rescope(&mut self, root: &str) -> Result<(), LogError> {
        let places = mcp_memory_core::roots::places(root).map_err(LogError)?;
        (self.js)
            .rescope(&places.inside_dir, &places.inside_file, &places.beside)
            .map_err(log_error)?;
        self.name = self.js.name().map_err(log_error)?;
        Ok(())
    }
    fn sleep_ms(&mut self, ms: u32) {
        self.js.sleep_ms(ms)
    }
}

/// A memory kept in a file, served to JavaScript.
#[wasm_bindgen]
pub struct FileMemory {
    server: Server<FileLog<JsFile>>,
    warnings: Vec<String>,
}

#[wasm_bindgen]
impl FileMemory {
    /// Opens the memory in the file `disk` does the I/O for (converting a reference JSONL
    /// file, keeping the original as `.bak`). Throws if the file cannot be read or is damaged
    /// before its tail.
    pub fn open(disk: JsDisk) -> Result<FileMemory, JsError> {
        let name = disk.name().map_err(|e| js_error(log_error(e).0))?;
        let token = disk.token().map_err(|e| js_error(log_error(e).0))?;
        let mut log = FileLog::new(JsFile {
            js: disk,
            name,
            token,
        });
        log.lock().map_err(|e| js_error(e.0))?;
        // On failure the log is dropped, which releases the lock.
        let (mut server, opened) = Server::open(log).map_err(js_error)?;
        let log = server.memory_mut().log_mut();
        log.unlock();
        let mut warnings = log.take_warnings();
        warnings.extend(opened);
        Ok(FileMemory { server, warnings })
    }

    /// Serves each client the memory of its first workspace root (`--scope roots`; see
    /// `JsDisk.rescope` for where it is), not the file's, when it lists roots.
    #[wasm_bindgen(js_name = setScopeRoots)]
    pub fn set_scope_roots(&mut self, on: bool) {
        self.server.set_scope_roots(on);
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

    /// Warnings for the user since the last call (conversion, torn tails, stale locks).
    #[wasm_bindgen(js_name = takeWarnings)]
    pub fn take_warnings(&mut self) -> Vec<String> {
        let mut warnings = core::mem::take(&mut self.warnings);
        warnings.extend(self.server.memory_mut().log_mut().take_warnings());
        warnings
    }

    /// Handles one MCP (JSON-RPC 2.0) message; returns the messages to send, in order (a
    /// file that cannot be locked or read fails the message, in its reply).
    pub fn handle(&mut self, message: &str) -> Vec<String> {
        self.turn(|s| s.handle_in(0, now(), message))
    }

    /// Handles one line of the stdio transport, as bytes (invalid UTF-8 becomes U+FFFD);
    /// returns the messages to send as bytes, each followed by `\n`. The server's path:
    /// no string conversion on either side of the boundary for megabyte-sized replies.
    #[wasm_bindgen(js_name = handleLine)]
    pub fn handle_line(&mut self, line: &[u8]) -> Vec<u8> {
        let text = String::from_utf8_lossy(line);
        self.turn(|s| lines(s.handle_in(0, now(), &text)))
    }

    /// The graph in the reference server's JSONL file format.
    #[wasm_bindgen(js_name = exportJsonl)]
    pub fn export_jsonl(&mut self) -> Result<Vec<u8>, JsValue> {
        self.turn(|s| s.memory_mut().export_jsonl().map_err(memory_error))
    }

    /// The graph in the TypeScript "Memory MCP" server's JSONL format.
    #[wasm_bindgen(js_name = exportMemoryMcp)]
    pub fn export_memory_mcp(&mut self) -> Result<Vec<u8>, JsValue> {
        self.turn(|s| s.memory_mut().export_memory_mcp().map_err(memory_error))
    }

    /// The graph as a compacted memory log file.
    #[wasm_bindgen(js_name = exportLog)]
    pub fn export_log(&mut self) -> Result<Vec<u8>, JsValue> {
        self.turn(|s| s.memory_mut().export_log().map_err(memory_error))
    }

    /// Merges a memory file (log or reference JSONL) into the memory; returns a summary.
    #[wasm_bindgen(js_name = importFile)]
    pub fn import_file(&mut self, data: &[u8]) -> Result<String, JsValue> {
        self.turn(|s| s.import(data, now()).map_err(memory_error))
    }

    /// Rewrites the memory file as the graph as it stands (deleted text leaves the file);
    /// returns the number of records it now holds.
    pub fn compact(&mut self) -> Result<usize, JsValue> {
        self.turn(|s| s.memory_mut().compact().map_err(memory_error))
    }

    /// Builds a slice of a search index no search has needed yet (a few milliseconds);
    /// `false`, having done nothing, once all are built. Call it while no message waits, so
    /// the first search finds its indexes ready.
    pub fn warm(&mut self) -> bool {
        self.server.memory_mut().warm()
    }

    /// Readies the memory file for the next start (a checkpoint, if many changes followed
    /// the last one) as the host is done with it. Nothing acknowledged depends on it.
    pub fn close(&mut self) {
        self.turn(|s| s.memory_mut().close())
    }

    /// Runs `f` as one turn on the file: the memory takes the file's lock as it catches up
    /// if it means to write (reads take none), and the lock is released as `f` returns.
    fn turn<T>(&mut self, f: impl FnOnce(&mut Server<FileLog<JsFile>>) -> T) -> T {
        let result = f(&mut self.server);
        self.server.memory_mut().log_mut().unlock();
        result
    }
}
