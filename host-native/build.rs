//! Builds the memory component and precompiles it for the target, so the binary embeds a
//! ready-to-run component and needs no compiler at run time.
//!
//! 1. `cargo build -p mcp-memory-component --target wasm32-unknown-unknown --profile wasm`
//!    into `target/component` (shared by every profile of the outer build);
//! 2. `wit-component` turns the core module into a component (`OUT_DIR/memory.wasm`);
//! 3. wasmtime precompiles it for the target's baseline CPU (`OUT_DIR/memory.cwasm`).

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

#[path = "src/engine_config.rs"]
mod engine_config;

fn main() -> Result<()> {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR")?);
    let root = manifest_dir
        .parent()
        .context("host-native lives in the workspace")?;
    for watched in [
        "core/src",
        "core/Cargo.toml",
        "core/component",
        // The memory browser, which the core offers as an MCP Apps resource.
        "npm/ui/index.html",
        "wit",
        "Cargo.toml",
        "Cargo.lock",
        ".cargo/config.toml",
    ] {
        // Relative to the package, so a target directory shared by two clones of the
        // workspace watches the clone being built (an absolute path kept watching the
        // other one, and its component went stale).
        println!("cargo:rerun-if-changed=../{watched}");
    }
    println!("cargo:rerun-if-changed=src/engine_config.rs");
    println!("cargo:rerun-if-env-changed=MCP_MEMORY_LINT_GUEST");

    let out_dir = PathBuf::from(env::var("OUT_DIR")?);
    let module = build_guest(root, &out_dir)?;
    let component = wit_component::ComponentEncoder::default()
        .module(&std::fs::read(&module).with_context(|| format!("reading {}", module.display()))?)?
        .validate(true)
        .encode()
        .context("wrapping the core module into a component")?;
    std::fs::write(out_dir.join("memory.wasm"), &component)?;

    let mut config = engine_config::config();
    let target = env::var("TARGET")?;
    // An explicit target turns off host CPU feature detection: the artifact then runs on
    // any CPU of the architecture (x86-64-v2 level on x86_64), not just the build machine's.
    config.target(&target)?;
    if target.starts_with("x86_64") {
        for flag in [
            "has_sse3",
            "has_ssse3",
            "has_sse41",
            "has_sse42",
            "has_popcnt",
        ] {
            // SAFETY: every x86-64-v2 CPU (2009 onwards) has these; the runtime refuses an
            // artifact that needs features the CPU lacks instead of running it.
            unsafe { config.cranelift_flag_enable(flag) };
        }
    }
    let engine = wasmtime::Engine::new(&config)?;
    let precompiled = engine.precompile_component(&component)?;
    std::fs::write(out_dir.join("memory.cwasm"), precompiled)?;
    Ok(())
}

/// Builds the guest crate for wasm32 and returns the path of its core module.
fn build_guest(root: &Path, out_dir: &Path) -> Result<PathBuf> {
    // OUT_DIR is <target>/<profile>/build/<pkg>/out: build the guest once under <target>.
    let target_dir = out_dir
        .ancestors()
        .nth(4)
        .context("OUT_DIR has the usual layout")?
        .join("component");
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root)
        .args(["build", "--locked", "-p", "mcp-memory-component"])
        .args(["--target", "wasm32-unknown-unknown", "--profile", "wasm"])
        .arg("--target-dir")
        .arg(&target_dir);
    // The outer build's settings are not the guest's, but for linting: tests/run builds with
    // clippy-driver as the workspace's rustc wrapper and sets MCP_MEMORY_LINT_GUEST, so the
    // guest is linted for wasm32 as it is built.
    let lint = env::var_os("MCP_MEMORY_LINT_GUEST").is_some();
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "CLIPPY_ARGS",
        "CARGO_LLVM_COV",
    ] {
        if !(lint && matches!(var, "RUSTC_WORKSPACE_WRAPPER" | "CLIPPY_ARGS")) {
            cmd.env_remove(var);
        }
    }
    let status = cmd.status().context("running cargo for the component")?;
    if !status.success() {
        bail!(
            "building the component failed ({status}); is the wasm target installed? \
             rustup target add wasm32-unknown-unknown"
        );
    }
    Ok(target_dir.join("wasm32-unknown-unknown/wasm/mcp_memory_component.wasm"))
}
