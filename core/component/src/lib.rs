//! The core as a WebAssembly component: exports `server`, imports `log` (`wit/memory.wit`).
//!
//! Only meaningful for `wasm32`; on other targets the crate is empty so workspace-wide
//! commands still build.

#![cfg_attr(target_arch = "wasm32", no_std)]

#[cfg(target_arch = "wasm32")]
mod guest;
