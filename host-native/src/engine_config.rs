//! The wasmtime configuration, shared by the build script (which precompiles the component)
//! and the binary (which loads it): a precompiled component loads only into an engine
//! configured the same way.

/// The engine configuration for the memory component.
pub fn config() -> wasmtime::Config {
    wasmtime::Config::new()
}
