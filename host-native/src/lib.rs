//! The native host of the mcp-memory component: wasmtime runs the component, this crate
//! owns the memory file, the transports and the configuration. It holds no graph logic.

pub mod auth;
pub mod config;
pub mod disk;
pub mod engine;
mod engine_config;
pub mod http;
pub mod hub;
pub mod listen;
pub mod maintenance;
pub mod pglog;
pub mod pgsession;
pub mod pgtls;
mod resident;
pub mod seeddb;
pub mod service;
pub mod stdio;
pub mod store;
pub mod tcp;
