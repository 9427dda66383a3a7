//! The mcp-memory engine: a knowledge graph for LLM agents, its MCP tools and protocol
//! handling, and the records it persists. `no_std` + `alloc`, and no I/O: every change is
//! handed to the host's [`Log`] before it is applied, and the host moves the bytes.
//!
//! Entry point: [`Memory::open`] replays a log, [`Memory::handle`] answers one MCP message.

#![no_std]
#![warn(missing_docs)]

extern crate alloc;

pub mod filelog;
pub mod frame;
pub mod graph;
pub mod hash;
pub mod intern;
pub mod json;
pub mod jsonl;
pub mod log;
pub mod mcp;
pub mod memory;
pub mod record;
pub mod search;
pub mod substring;
pub mod tools;
pub mod validate;
pub mod verify;

pub use log::{Changes, Contents, Log, LogError};
pub use memory::{Memory, OpenError};
