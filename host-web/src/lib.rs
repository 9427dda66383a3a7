//! mcp-memory-core for JavaScript, through wasm-bindgen: the engine of the npm package.
//!
//! Two memories, by where the log lives:
//! - [`file::FileMemory`]: a memory file, whose raw operations JavaScript supplies
//!   (`npm/lib/disk.js` over `node:fs`);
//! - [`queue::QueueMemory`]: an asynchronous store (IndexedDB, `npm/lib/browser.js`): the
//!   caller hands in the records before a call and takes what the call appended after it.
//!
//! [`verify`] checks and repairs a memory file's bytes for the CLI's `verify` and `repair`.
//!
//! Everything with meaning — the graph, MCP, record encoding, the file's framing, recovery
//! and lock protocol — runs here, in the same Rust the native host runs. This crate only
//! adapts: JavaScript calls become core calls and back.

use core::sync::atomic::{AtomicU64, Ordering};
use mcp_memory_core::{Error, LogError};
use wasm_bindgen::prelude::*;

pub mod file;
pub mod queue;
pub mod verify;

/// A thrown JavaScript value, in words.
/// The time [`pin_clock`] pinned (milliseconds since the Unix epoch), or 0: none.
static PINNED: AtomicU64 = AtomicU64::new(0);

/// Pins the clock of every memory of this engine: each message is then handled at `ms`
/// (milliseconds since the Unix epoch), so tests write reproducible files; `undefined`
/// unpins it (the default: `Date.now()`).
#[wasm_bindgen(js_name = pinClock)]
pub fn pin_clock(ms: Option<f64>) {
    PINNED.store(ms.map_or(0, |ms| ms as u64), Ordering::Relaxed);
}

/// The host's time for a message: the JavaScript clock (`Date.now()`), in milliseconds,
/// unless [`pin_clock`] pinned it.
fn now() -> u64 {
    match PINNED.load(Ordering::Relaxed) {
        0 => js_sys::Date::now() as u64,
        pinned => pinned,
    }
}

/// The embedding table from a JavaScript function returning its bytes (a `Uint8Array`),
/// or anything else when there is none (a function that throws has none either).
fn table_source(source: js_sys::Function) -> mcp_memory_core::index::TableSource {
    Box::new(move || {
        let table = source.call0(&JsValue::NULL).ok()?;
        let bytes = table.dyn_into::<js_sys::Uint8Array>().ok()?;
        Some(bytes.to_vec())
    })
}

fn log_error(e: JsValue) -> LogError {
    LogError(match e.dyn_ref::<js_sys::Error>() {
        Some(error) => String::from(error.message()),
        None => e.as_string().unwrap_or_else(|| format!("{e:?}")),
    })
}

fn js_error(e: impl core::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

/// A memory's failure as a thrown JavaScript `Error` whose `code` says which kind it is:
/// `LOG_FAILED` (the store failed; `op` says at what: refresh, append, sync, replace),
/// `UNAVAILABLE` (the memory's file cannot be used) or `IMPORT_REFUSED` (nothing imported).
fn memory_error(e: Error) -> JsValue {
    let error = js_sys::Error::new(&e.to_string());
    let (code, op) = match &e {
        Error::Log { op, .. } => ("LOG_FAILED", Some(format!("{op:?}").to_lowercase())),
        Error::Unavailable(_) => ("UNAVAILABLE", None),
        Error::ImportRefused(_) => ("IMPORT_REFUSED", None),
    };
    let set = |key: &str, value: &str| {
        let _ = js_sys::Reflect::set(&error, &key.into(), &value.into());
    };
    set("code", code);
    if let Some(op) = op {
        set("op", &op);
    }
    error.into()
}

/// Replies as the stdio transport sends them: each followed by `\n`.
fn lines(replies: Vec<String>) -> Vec<u8> {
    let mut out = Vec::with_capacity(replies.iter().map(|r| r.len() + 1).sum());
    for reply in replies {
        out.extend_from_slice(reply.as_bytes());
        out.push(b'\n');
    }
    out
}

/// A memory log file with no records (what exporting a memory that does not exist gives).
#[wasm_bindgen(js_name = emptyLog)]
pub fn empty_log() -> Vec<u8> {
    mcp_memory_core::frame::encode_log(core::iter::empty())
}

/// The reply to a message whose handling failed outside the protocol (the engine trapped):
/// a JSON-RPC internal error carrying `reason`, or `undefined` if it needs no reply.
#[wasm_bindgen(js_name = failureReply)]
pub fn failure_reply(message: &str, reason: &str) -> Option<String> {
    mcp_memory_core::mcp::failure_reply(message, reason)
}

/// Throws if `profile` or `tools` (as a memory's `setTools` takes them) names a profile or
/// a tool there is not: a command line checks them before it opens anything.
#[wasm_bindgen(js_name = checkTools)]
pub fn check_tools(profile: &str, tools: &str) -> Result<(), JsError> {
    mcp_memory_core::tools::profile::Selection::new(profile, tools)
        .map(drop)
        .map_err(js_error)
}
