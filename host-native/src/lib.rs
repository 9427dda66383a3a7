//! The native host of the mcp-memory component: wasmtime runs the component, this crate
//! owns the memory file, the transports and the configuration. It holds no graph logic.

pub mod config;
pub mod disk;
pub mod engine;
mod engine_config;
pub mod stdio;
