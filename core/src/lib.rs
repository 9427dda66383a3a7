//! The mcp-memory engine: a knowledge graph for LLM agents, its MCP tools and protocol
//! handling, and the records it persists. `no_std` + `alloc`, and no I/O: every change is
//! handed to the host's [`Log`] before it is applied, and the host moves the bytes.
//!
//! Entry point: [`Server::open`] replays a log into a [`Memory`], [`Server::handle`] answers
//! one MCP message.
//!
//! Modules form layers; a module uses only modules of lower layers (ARCHITECTURE.md,
//! checked by `tests/suite/layers.rs`):
//!
//! 1. `hash`, `intern`, `json`, `frame`, `log`, `model`, `record`, `filelog`, `time`,
//!    `embed`, `sidefiles` — bytes, strings, times, storage and text embeddings;
//! 2. `graph` — the graph and its snapshot as records;
//! 3. `index` (substring and ranked search), `jsonl` (the reference's file format),
//!    `seedlog` (the Rust seed's binary log);
//! 4. `memory` (graph + indexes + log), `verify`, `capabilities` (merge, walk, rank, draw);
//! 5. `tools` — the tool catalog, argument validation, each surface's tools;
//! 6. `mcp` — JSON-RPC/MCP messages and sessions (`Server`).
//!
//! Public are the modules the hosts, tests, benches and fuzz targets use; `hash`, `intern`,
//! `seedlog` and `capabilities` are the engine's own.
//!
//! With the `testing` feature, [`testing`] holds in-memory logs and disks for tests.
//!
//! ```
//! use mcp_memory_core::Server;
//! use mcp_memory_core::testing::MemLog;
//!
//! let log = MemLog::new();
//! let (mut server, warnings) = Server::open(log.clone()).expect("an empty log opens");
//! assert!(warnings.is_empty());
//! let create = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_entities","arguments":{"entities":[{"name":"Ada","entityType":"person","observations":["wrote the first program"]}]}}}"#;
//! let replies = server.handle(create);
//! assert!(replies[0].contains(r#""name":"Ada""#));
//! assert_eq!(log.len(), 1, "the change was logged before the reply");
//! assert_eq!(server.memory().graph().entity_count(), 1);
//! ```

#![no_std]
#![warn(missing_docs)]

extern crate alloc;

mod capabilities;
pub mod embed;
pub mod filelog;
pub mod frame;
pub mod graph;
mod hash;
pub mod index;
mod intern;
pub mod json;
pub mod jsonl;
pub mod log;
pub mod mcp;
pub mod memory;
pub mod model;
pub mod record;
pub mod roots;
mod seedlog;
pub mod sidefiles;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod time;
pub mod tools;
pub mod verify;

pub use log::{Changes, Contents, Foreign, Intent, Log, LogError, PAGE_BYTES, Page, SideFile};
pub use mcp::Server;
pub use memory::{Error, Memory, OpenError};
