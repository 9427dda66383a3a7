//! Runs the memory component (built and precompiled by `build.rs`) in wasmtime, with a
//! [`HostLog`] (a memory file, or a database) behind its `log` import.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use wasmtime::component::{Component, HasSelf, Linker, ResourceAny};
use wasmtime::{Engine, Store};

use crate::engine_config;
use crate::resident::GuestMemories;
use crate::store::HostLog;
use mcp_memory_core::memory::LogOp;
use mcp_memory_core::{Changes, Contents, Error, Intent, LogError};

wasmtime::component::bindgen!({
    world: "memory-server",
    path: "../wit",
});

/// How a memory is opened (the WIT `options` record): actor, days of history kept.
pub use self::exports::mcp_memory::memory::server::Options;
/// The messages answering one message (the WIT `replies` record).
pub use self::exports::mcp_memory::memory::server::Replies;
use self::exports::mcp_memory::memory::server::{LogOp as WitLogOp, MemoryError};
use self::mcp_memory::memory::{embeddings, log};

/// Why a call on the memory failed: the memory said no (the core's typed error, which the
/// CLI matches on), or the component itself failed.
#[derive(Debug)]
pub enum CallError {
    /// The memory refused or its log failed.
    Memory(Error),
    /// The component trapped, or could not be called.
    Engine(anyhow::Error),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Memory(e) => write!(f, "{e}"),
            CallError::Engine(e) => write!(f, "{e:#}"),
        }
    }
}

impl std::error::Error for CallError {}

impl From<MemoryError> for CallError {
    fn from(e: MemoryError) -> Self {
        CallError::Memory(match e {
            MemoryError::Log((op, message)) => Error::Log {
                op: match op {
                    WitLogOp::Refresh => LogOp::Refresh,
                    WitLogOp::Append => LogOp::Append,
                    WitLogOp::Sync => LogOp::Sync,
                    WitLogOp::Replace => LogOp::Replace,
                },
                error: LogError(message),
            },
            MemoryError::Unavailable(reason) => Error::Unavailable(reason),
            MemoryError::ImportRefused(reason) => Error::ImportRefused(reason),
        })
    }
}

/// The component, precompiled for this architecture by `build.rs`.
static PRECOMPILED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/memory.cwasm"));

/// The tool profile a server lists unless told otherwise.
pub const DEFAULT_PROFILE: &str = "default";

impl Default for Options {
    /// No actor; the core's default days of history; the default profile's tools.
    fn default() -> Self {
        Options {
            actor: None,
            history_days: mcp_memory_core::memory::DEFAULT_HISTORY_DAYS,
            profile: DEFAULT_PROFILE.to_string(),
            tools: String::new(),
            scope_roots: false,
        }
    }
}

/// The store's state: the host side of the `log` import.
struct HostState {
    log: Box<dyn HostLog>,
}

impl log::Host for HostState {
    fn replay(&mut self) -> Result<log::Contents, String> {
        match self.log.replay().map_err(|e| e.0)? {
            Contents::Records(records) => Ok(log::Contents::Records(records)),
            Contents::FromCheckpoint {
                skipped_bytes,
                entries,
            } => Ok(log::Contents::FromCheckpoint(log::Tail {
                skipped_bytes,
                entries,
            })),
            Contents::Foreign(file) => Ok(log::Contents::Foreign(log::ForeignFile {
                bytes: file.bytes,
                side_files: (file.side_files.into_iter())
                    .map(|f| log::SideFile {
                        name: f.name,
                        bytes: f.bytes,
                    })
                    .collect(),
            })),
        }
    }

    fn refresh(&mut self, intent: log::Intent) -> Result<log::Changes, String> {
        let intent = match intent {
            log::Intent::Read => Intent::Read,
            log::Intent::Write => Intent::Write,
        };
        match self.log.refresh(intent).map_err(|e| e.0)? {
            Changes::Appended(records) => Ok(log::Changes::Appended(records)),
            Changes::Replaced {
                skipped_bytes,
                entries,
            } => Ok(log::Changes::Replaced(log::Tail {
                skipped_bytes,
                entries,
            })),
        }
    }

    fn append(&mut self, entry: Vec<u8>) -> Result<(), String> {
        self.log.append(&entry).map_err(|e| e.0)
    }

    fn sync(&mut self) -> Result<(), String> {
        self.log.sync().map_err(|e| e.0)
    }

    fn entries(&mut self, from: u64, budget: u32) -> Result<log::Page, String> {
        let page = self.log.entries(from, budget).map_err(|e| e.0)?;
        Ok(log::Page {
            entries: page.entries,
            next: page.next,
        })
    }

    fn replace(&mut self, entries: Vec<Vec<u8>>, first: bool, last: bool) -> Result<(), String> {
        self.log
            .replace_piece(&entries, first, last)
            .map_err(|e| e.0)
    }

    fn read_named(&mut self, path: String) -> Result<Vec<u8>, String> {
        self.log.read_named(&path).map_err(|e| e.0)
    }

    fn rescope(&mut self, root: String) -> Result<(), String> {
        self.log.rescope(&root).map_err(|e| e.0)
    }

    fn save_indexes(&mut self, at: u64, piece: Vec<u8>, done: bool) -> Result<(), String> {
        self.log.save_indexes(at, &piece, done).map_err(|e| e.0)
    }

    fn load_indexes(&mut self, at: u64, len: u32) -> Result<Option<Vec<u8>>, String> {
        match self.log.index_reader() {
            Some(mut read) => read(at, len).map_err(|e| e.0),
            None => Ok(None),
        }
    }
}

/// The embedding table semantic search reads, carried in the binary (8 MB) and handed to
/// the guest when a search first needs it.
static EMBEDDINGS: &[u8] = include_bytes!("../../core/embeddings/table.bin");

impl embeddings::Host for HostState {
    fn table(&mut self) -> Option<Vec<u8>> {
        Some(EMBEDDINGS.to_vec())
    }
}

/// Names the component's functions for `perf` (`/tmp/perf-<pid>.map`) when set: profiling
/// only, it changes nothing else.
pub const PERFMAP_VAR: &str = "MCP_MEMORY_PERFMAP";

/// Pins the clock: every message is handled at this time (milliseconds since the Unix
/// epoch), so tests write reproducible files.
pub const CLOCK_VAR: &str = "MCP_MEMORY_NOW";

/// The host's clock, as the guest is given it: milliseconds since the Unix epoch (0, "not
/// known", for a clock set before 1970), or the time $MCP_MEMORY_NOW pins.
fn now_ms() -> u64 {
    static PINNED: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    if let Some(ms) = *PINNED.get_or_init(|| std::env::var(CLOCK_VAR).ok()?.parse().ok()) {
        return ms;
    }
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    since.map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Longest a lock kept between messages (see [`Server::linger`]) is held in all: far
/// inside the age at which other processes judge a lock stale.
const MAX_HOLD: Duration = Duration::from_millis(250);

/// A memory served by an instance of the component.
pub struct Server {
    store: Store<HostState>,
    bindings: MemoryServer,
    memory: ResourceAny,
    /// Whether a lock a message took is kept for the next message (see [`Server::linger`]).
    linger: bool,
    /// Since when the lock has been kept between messages.
    held_since: Option<Instant>,
}

impl Server {
    /// Instantiates the component over `log` and opens the memory with these options (the
    /// actor stamped on every change, the days of history kept). Returns warnings.
    pub fn open(log: Box<dyn HostLog>, options: &Options) -> Result<(Server, Vec<String>)> {
        let mut config = engine_config::config();
        if std::env::var_os(PERFMAP_VAR).is_some() {
            config.profiler(wasmtime::ProfilingStrategy::PerfMap);
        }
        config.with_host_memory(GuestMemories::creator());
        let engine = Engine::new(&config)?;
        // SAFETY: PRECOMPILED was produced by `Engine::precompile_component` in build.rs, with
        // the same wasmtime version and configuration, and is embedded read-only.
        let component = unsafe { Component::deserialize(&engine, PRECOMPILED) }
            .map_err(anyhow::Error::from)
            .context("loading the embedded component")?;
        let mut linker = Linker::new(&engine);
        MemoryServer::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s)?;
        let mut store = Store::new(&engine, HostState { log });
        let bindings = MemoryServer::instantiate(&mut store, &component, &linker)?;
        store.data_mut().log.lock().map_err(|e| anyhow!(e.0))?;
        let opened = bindings
            .mcp_memory_memory_server()
            .memory()
            .call_open(&mut store, options);
        store.data_mut().log.unlock();
        let mut warnings = store.data_mut().log.take_warnings();
        let (memory, more) = opened?.map_err(|e| anyhow!(e))?;
        warnings.extend(more);
        Ok((
            Server {
                store,
                bindings,
                memory,
                linger: false,
                held_since: None,
            },
            warnings,
        ))
    }

    /// Runs `call` as one turn on the memory file: a guest that means to write takes the
    /// file's lock as it catches up (a refresh for writing; reads take none), and the lock is
    /// released as the call returns.
    fn turn<T>(
        &mut self,
        call: impl FnOnce(&MemoryServer, &mut Store<HostState>, ResourceAny) -> wasmtime::Result<T>,
    ) -> Result<T> {
        let result = call(&self.bindings, &mut self.store, self.memory);
        self.release();
        Ok(result?)
    }

    /// Keeps the lock a message takes for the messages that follow, until [`Server::release`]
    /// (or for at most [`MAX_HOLD`]): a transport that reads one client's messages in turn
    /// releases it when none came within a few milliseconds, so a burst of writes takes the
    /// lock once instead of once a message (creating, reading and removing the lock file:
    /// most of what a small write costs).
    pub fn linger(&mut self) {
        self.linger = true;
    }

    /// Whether this server holds the memory file's lock between messages.
    pub fn holds_lock(&self) -> bool {
        self.store.data().log.is_locked()
    }

    /// Releases the memory file's lock, if this server holds it.
    pub fn release(&mut self) {
        self.store.data_mut().log.unlock();
        self.held_since = None;
    }

    /// Handles one MCP message from the client of `session`; returns the messages to send
    /// it, the last one perhaps only begun ([`Replies::continued`]: its rest comes from
    /// [`Server::next_piece`]).
    pub fn handle(&mut self, session: u32, message: &str) -> Result<Replies> {
        let replies = self
            .bindings
            .mcp_memory_memory_server()
            .memory()
            .call_handle(&mut self.store, self.memory, session, now_ms(), message);
        let keep =
            self.linger && replies.is_ok() && self.holds_lock() && self.store.data().log.lingers();
        match self.held_since {
            _ if !keep => self.release(),
            None => self.held_since = Some(Instant::now()),
            Some(since) if since.elapsed() >= MAX_HOLD => self.release(),
            Some(_) => {}
        }
        Ok(replies?)
    }

    /// Handles one MCP message from the client of `session`; returns the messages to send
    /// it, each whole.
    pub fn handle_whole(&mut self, session: u32, message: &str) -> Result<Vec<String>> {
        let Replies {
            mut messages,
            continued,
        } = self.handle(session, message)?;
        if let (true, Some(last)) = (continued, messages.last_mut()) {
            while let Some(piece) = self.next_piece()? {
                last.push_str(&piece);
            }
        }
        Ok(messages)
    }

    /// The next piece of the last message [`Server::handle`] began, or `None` once it is
    /// complete. Reads only the guest's graph: the memory file's lock is not needed.
    pub fn next_piece(&mut self) -> Result<Option<String>> {
        let memory = self.memory;
        let server = self.bindings.mcp_memory_memory_server();
        Ok(server.memory().call_next_piece(&mut self.store, memory)?)
    }

    /// Builds a slice of a search index not built yet; `false` once all are built. Reads
    /// only the guest's graph: the memory file's lock is not needed.
    pub fn warm(&mut self) -> Result<bool> {
        let memory = self.memory;
        let server = self.bindings.mcp_memory_memory_server();
        Ok(server.memory().call_warm(&mut self.store, memory)?)
    }

    /// Messages waiting for other sessions' clients, as (session, message).
    pub fn take_notices(&mut self) -> Result<Vec<(u32, String)>> {
        let memory = self.memory;
        let server = self.bindings.mcp_memory_memory_server();
        Ok(server.memory().call_take_notices(&mut self.store, memory)?)
    }

    /// Forgets a session whose client went away.
    pub fn end_session(&mut self, session: u32) -> Result<()> {
        let memory = self.memory;
        let server = self.bindings.mcp_memory_memory_server();
        Ok(server
            .memory()
            .call_end_session(&mut self.store, memory, session)?)
    }

    /// Catches up with other writers' changes (the host heard of them); subscribers'
    /// notifications then wait in [`Server::take_notices`].
    pub fn poll(&mut self) -> Result<()> {
        self.turn(|b, store, memory| {
            b.mcp_memory_memory_server()
                .memory()
                .call_poll(store, memory)
        })
    }

    /// Readies the memory file for the next start (a checkpoint, if many changes followed
    /// the last one) as the host is done with it.
    pub fn close(&mut self) -> Result<()> {
        self.turn(|b, store, memory| {
            b.mcp_memory_memory_server()
                .memory()
                .call_close(store, memory)
        })
    }

    /// Rewrites the memory file as the graph as it stands; returns its record count.
    pub fn compact(&mut self) -> Result<u32, CallError> {
        self.memory_call(|b, store, memory| {
            b.mcp_memory_memory_server()
                .memory()
                .call_compact(store, memory)
        })
    }

    /// Runs a call that answers with the memory's typed error, as one turn on the file.
    fn memory_call<T>(
        &mut self,
        call: impl FnOnce(
            &MemoryServer,
            &mut Store<HostState>,
            ResourceAny,
        ) -> wasmtime::Result<std::result::Result<T, MemoryError>>,
    ) -> Result<T, CallError> {
        let answer = self.turn(call).map_err(CallError::Engine)?;
        answer.map_err(CallError::from)
    }

    /// Warnings the memory file produced since the last call (torn tails cut off).
    pub fn take_warnings(&mut self) -> Vec<String> {
        self.store.data_mut().log.take_warnings()
    }

    /// The reply to a message whose handling trapped in another instance, if it needs one.
    pub fn failure_reply(&mut self, message: &str, reason: &str) -> Result<Option<String>> {
        Ok(self
            .bindings
            .mcp_memory_memory_server()
            .call_failure_reply(&mut self.store, message, reason)?)
    }

    /// The graph as reference JSONL.
    pub fn export_jsonl(&mut self) -> Result<Vec<u8>, CallError> {
        self.memory_call(|b, store, memory| {
            b.mcp_memory_memory_server()
                .memory()
                .call_export_jsonl(store, memory)
        })
    }

    /// The graph in the TypeScript "Memory MCP" server's JSONL format.
    pub fn export_memory_mcp(&mut self) -> Result<Vec<u8>, CallError> {
        self.memory_call(|b, store, memory| {
            b.mcp_memory_memory_server()
                .memory()
                .call_export_memory_mcp(store, memory)
        })
    }

    /// The graph as a compacted memory log file.
    pub fn export_log(&mut self) -> Result<Vec<u8>, CallError> {
        self.memory_call(|b, store, memory| {
            b.mcp_memory_memory_server()
                .memory()
                .call_export_log(store, memory)
        })
    }

    /// Merges a memory file (log or reference JSONL) into the memory; returns a summary.
    pub fn import_file(&mut self, data: &[u8]) -> Result<String, CallError> {
        self.memory_call(|b, store, memory| {
            b.mcp_memory_memory_server()
                .memory()
                .call_import_file(store, memory, data, now_ms())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasmtime::component::types::ComponentItem;

    fn embedded() -> (Engine, Component) {
        let engine = Engine::new(&engine_config::config()).unwrap();
        // SAFETY: as in `Server::open`: the artifact build.rs precompiled for this engine.
        let component = unsafe { Component::deserialize(&engine, PRECOMPILED) }.unwrap();
        (engine, component)
    }

    /// The functions of the component's import `name` (an instance), sorted.
    fn imported_funcs<'e>(engine: &'e Engine, component: &'e Component, name: &str) -> Vec<String> {
        let ty = component.component_type();
        let (_, item) = (ty.imports(engine).find(|(n, _)| *n == name))
            .unwrap_or_else(|| panic!("{name} is imported"));
        let ComponentItem::ComponentInstance(instance) = item.ty else {
            panic!("the {name} import is an instance, got {:?}", item.ty);
        };
        let mut funcs: Vec<String> = instance
            .exports(engine)
            .filter(|(_, e)| matches!(e.ty, ComponentItem::ComponentFunc(_)))
            .map(|(name, _)| name.to_string())
            .collect();
        funcs.sort_unstable();
        funcs
    }

    #[test]
    fn embedded_component_imports_only_the_log_and_the_embedding_table() {
        let (engine, component) = embedded();
        let ty = component.component_type();
        let imports: Vec<&str> = ty.imports(&engine).map(|(name, _)| name).collect();
        // No WASI, no other host function: the component can touch nothing but its log
        // (and read the embedding table the host offers).
        let (log, embeddings) = (
            "mcp-memory:memory/log@0.1.0",
            "mcp-memory:memory/embeddings@0.1.0",
        );
        assert_eq!(imports, [log, embeddings]);
        assert_eq!(
            imported_funcs(&engine, &component, log),
            [
                "append",
                "entries",
                "load-indexes",
                "read-named",
                "refresh",
                "replace",
                "replay",
                "rescope",
                "save-indexes",
                "sync"
            ]
        );
        assert_eq!(imported_funcs(&engine, &component, embeddings), ["table"]);
    }

    #[test]
    fn embedded_component_exports_the_server_interface() {
        let (engine, component) = embedded();
        let ty = component.component_type();
        let exports: Vec<&str> = ty.exports(&engine).map(|(name, _)| name).collect();
        assert_eq!(exports, ["mcp-memory:memory/server@0.1.0"]);
    }
}
