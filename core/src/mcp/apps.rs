//! MCP Apps (`io.modelcontextprotocol/ui`): the memory browser (`npm/ui/index.html`) offered
//! as a UI resource, listed to clients that declare the extension; any client may read it.

use alloc::format;
use alloc::string::String;
use serde_json::Value;

use crate::json;

/// The extension's name in a client's capabilities.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The memory browser's resource.
pub const BROWSER_URI: &str = "ui://mcp-memory/browser";
/// The MIME type of an MCP Apps page.
pub const MIME: &str = "text/html;profile=mcp-app";
/// The page.
const PAGE: &str = include_str!("../../../npm/ui/index.html");

/// Whether client capabilities declare MCP Apps (under `extensions`, or `experimental` as
/// some clients send it).
pub fn declared(capabilities: Option<&Value>) -> bool {
    capabilities.is_some_and(|c| {
        ["extensions", "experimental"]
            .into_iter()
            .any(|k| c.get(k).and_then(|e| e.get(EXTENSION)).is_some())
    })
}

/// The memory browser's entry in `resources/list`.
pub fn listed() -> String {
    format!(
        r#"{{"uri":"{BROWSER_URI}","name":"memory-browser","title":"Memory browser","description":"See and fix what the memory holds: search, entities with their observations, relations and neighbourhood, recent changes, undo","mimeType":"{MIME}"}}"#
    )
}

/// The result of `resources/read` for the memory browser.
pub fn read_result() -> String {
    format!(
        r#"{{"contents":[{{"uri":"{BROWSER_URI}","mimeType":"{MIME}","text":{}}}]}}"#,
        json::compact(PAGE)
    )
}
