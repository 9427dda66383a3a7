//! The ranked `search` tool. Its definition is in `extended/search.json`.

use alloc::string::String;
use serde_json::Value;

use crate::graph::Graph;

/// Runs the search tool `name` (arguments already checked against its schema): `None` if
/// `name` is not one of these tools, else the `CallToolResult` JSON or a failure text.
pub fn call(_graph: &Graph, _name: &str, _args: &Value) -> Option<Result<String, String>> {
    None
}
