//! `verify` and `repair` for the Node CLI: the core's checks (`mcp_memory_core::verify`)
//! over bytes JavaScript read. JavaScript reads the file, prints and writes; nothing else.

use mcp_memory_core::verify::{self, Repair, Report};
use wasm_bindgen::prelude::*;

use crate::js_error;

/// A memory file, checked.
#[wasm_bindgen]
pub struct Verification(Report);

#[wasm_bindgen]
impl Verification {
    /// The report as text (the CLI prints it after `FILE: `).
    pub fn text(&self) -> String {
        self.0.to_string()
    }

    /// The report as the text of one JSON object.
    pub fn json(&self) -> String {
        self.0.to_json()
    }

    /// The CLI's exit code for the verdict: 0 clean, 1 damaged, 3 only a torn tail.
    #[wasm_bindgen(getter, js_name = exitCode)]
    pub fn exit_code(&self) -> u8 {
        self.0.verdict().exit_code()
    }
}

/// Checks a memory file's bytes (a log, an empty file, or a reference JSONL file).
#[wasm_bindgen(js_name = verifyFile)]
pub fn verify_file(bytes: &[u8]) -> Verification {
    Verification(verify::verify(bytes))
}

/// A memory file, repaired.
#[wasm_bindgen]
pub struct Repaired(Repair);

#[wasm_bindgen]
impl Repaired {
    /// The repaired file's bytes.
    pub fn bytes(&self) -> Vec<u8> {
        self.0.bytes.clone()
    }

    /// What was kept and dropped, and why, one line each.
    pub fn summary(&self) -> String {
        self.0.to_string()
    }
}

/// Repairs a memory file's bytes: the valid prefix of a log, or the lines of a reference
/// JSONL file its reader accepts. Throws if the file cannot be repaired (a newer format).
#[wasm_bindgen(js_name = repairFile)]
pub fn repair_file(bytes: &[u8]) -> Result<Repaired, JsError> {
    verify::repair(bytes).map(Repaired).map_err(js_error)
}
