//! The wasmtime configuration, shared by the build script (which precompiles the component)
//! and the binary (which loads it): a precompiled component loads only into an engine
//! configured the same way.

/// The engine configuration for the memory component.
pub fn config() -> wasmtime::Config {
    let mut config = wasmtime::Config::new();
    // The binary gives the guest its own memories (`resident`), which take their initial
    // bytes by copy: a component precompiled for copy-on-write images would not load.
    config.memory_init_cow(false);
    config
}
