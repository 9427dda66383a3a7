//! Bindings between the WIT world and [`mcp_memory_core::Server`].

extern crate alloc;

use alloc::boxed::Box;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::cell::RefCell;

use mcp_memory_core::{Changes, Contents, Foreign, Intent, Log, LogError, Page, Server, SideFile};

wit_bindgen::generate!({
    world: "memory-server",
    path: "../../wit",
});

use exports::mcp_memory::memory::server::{
    Guest, GuestMemory, LogOp as WitLogOp, Memory as MemoryHandle, MemoryError, Options, Replies,
};
use mcp_memory::memory::log;
use mcp_memory_core::Error;
use mcp_memory_core::log::IndexReader;
use mcp_memory_core::memory::LogOp;

/// The host's log, reached through the `log` import.
struct HostLog;

impl Log for HostLog {
    fn replay(&mut self) -> Result<Contents, LogError> {
        match log::replay().map_err(LogError)? {
            log::Contents::Records(records) => Ok(Contents::Records(records)),
            log::Contents::FromCheckpoint(tail) => Ok(Contents::FromCheckpoint {
                skipped_bytes: tail.skipped_bytes,
                entries: tail.entries,
            }),
            log::Contents::Foreign(file) => Ok(Contents::Foreign(Foreign {
                bytes: file.bytes,
                side_files: (file.side_files.into_iter())
                    .map(|f| SideFile {
                        name: f.name,
                        bytes: f.bytes,
                    })
                    .collect(),
            })),
        }
    }

    fn refresh(&mut self, intent: Intent) -> Result<Changes, LogError> {
        let intent = match intent {
            Intent::Read => log::Intent::Read,
            Intent::Write => log::Intent::Write,
        };
        match log::refresh(intent).map_err(LogError)? {
            log::Changes::Appended(records) => Ok(Changes::Appended(records)),
            log::Changes::Replaced(tail) => Ok(Changes::Replaced {
                skipped_bytes: tail.skipped_bytes,
                entries: tail.entries,
            }),
        }
    }

    fn append(&mut self, entry: &[u8]) -> Result<(), LogError> {
        log::append(entry).map_err(LogError)
    }

    fn sync(&mut self) -> Result<(), LogError> {
        log::sync().map_err(LogError)
    }

    fn entries(&mut self, from: u64, budget: u32) -> Result<Page, LogError> {
        let page = log::entries(from, budget).map_err(LogError)?;
        Ok(Page {
            entries: page.entries,
            next: page.next,
        })
    }

    fn replace_piece(
        &mut self,
        entries: &[Vec<u8>],
        first: bool,
        last: bool,
    ) -> Result<(), LogError> {
        log::replace(entries, first, last).map_err(LogError)
    }

    fn read_named(&mut self, path: &str) -> Result<Vec<u8>, LogError> {
        log::read_named(path).map_err(LogError)
    }

    fn rescope(&mut self, root: &str) -> Result<(), LogError> {
        log::rescope(root).map_err(LogError)
    }

    fn save_indexes(&mut self, at: u64, piece: &[u8], done: bool) -> Result<(), LogError> {
        log::save_indexes(at, piece, done).map_err(LogError)
    }

    fn index_reader(&mut self) -> Option<IndexReader> {
        Some(Box::new(|at, len| {
            log::load_indexes(at, len).map_err(LogError)
        }))
    }
}

/// The core's error as the WIT world carries it.
fn wit_error(e: Error) -> MemoryError {
    match e {
        Error::Log { op, error } => {
            let op = match op {
                LogOp::Refresh => WitLogOp::Refresh,
                LogOp::Append => WitLogOp::Append,
                LogOp::Sync => WitLogOp::Sync,
                LogOp::Replace => WitLogOp::Replace,
            };
            MemoryError::Log((op, error.0))
        }
        Error::Unavailable(reason) => MemoryError::Unavailable(reason),
        Error::ImportRefused(reason) => MemoryError::ImportRefused(reason),
    }
}

struct Component;

/// A memory resource. Resource methods take `&self`; calls never overlap.
struct GuestMem(RefCell<Server<HostLog>>);

impl Guest for Component {
    type Memory = GuestMem;

    fn failure_reply(message: String, reason: String) -> Option<String> {
        mcp_memory_core::mcp::failure_reply(&message, &reason)
    }
}

impl GuestMemory for GuestMem {
    fn open(options: Options) -> Result<(MemoryHandle, Vec<String>), String> {
        let (mut server, warnings) = Server::open(HostLog).map_err(|e| e.to_string())?;
        server
            .memory_mut()
            .set_embedding_source(Box::new(mcp_memory::memory::embeddings::table));
        server.set_actor(options.actor);
        server.set_history_days(options.history_days);
        server.set_tools(&options.profile, &options.tools)?;
        server.set_scope_roots(options.scope_roots);
        Ok((MemoryHandle::new(GuestMem(RefCell::new(server))), warnings))
    }

    fn handle(&self, session: u32, now_ms: u64, message: String) -> Replies {
        let (messages, continued) = self.0.borrow_mut().handle_pieces(session, now_ms, &message);
        Replies {
            messages,
            continued,
        }
    }

    fn next_piece(&self) -> Option<String> {
        self.0.borrow_mut().next_piece()
    }

    fn take_notices(&self) -> Vec<(u32, String)> {
        self.0.borrow_mut().take_notices()
    }

    fn end_session(&self, session: u32) {
        self.0.borrow_mut().end_session(session)
    }

    fn poll(&self) {
        self.0.borrow_mut().poll()
    }

    fn warm(&self) -> bool {
        self.0.borrow_mut().memory_mut().warm()
    }

    fn close(&self) {
        self.0.borrow_mut().memory_mut().close()
    }

    fn compact(&self) -> Result<u32, MemoryError> {
        let records = self.0.borrow_mut().memory_mut().compact();
        // A log of more than 4 billion records cannot be held in memory to begin with.
        records
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
            .map_err(wit_error)
    }

    fn export_jsonl(&self) -> Result<Vec<u8>, MemoryError> {
        (self.0.borrow_mut().memory_mut().export_jsonl()).map_err(wit_error)
    }

    fn export_memory_mcp(&self) -> Result<Vec<u8>, MemoryError> {
        (self.0.borrow_mut().memory_mut().export_memory_mcp()).map_err(wit_error)
    }

    fn export_log(&self) -> Result<Vec<u8>, MemoryError> {
        (self.0.borrow_mut().memory_mut().export_log()).map_err(wit_error)
    }

    fn import_file(&self, data: Vec<u8>, now_ms: u64) -> Result<String, MemoryError> {
        (self.0.borrow_mut().import(&data, now_ms)).map_err(wit_error)
    }
}

export!(Component);

#[global_allocator]
static ALLOC: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}
