//! Read-only graph tools beyond the reference's nine: lookups, statistics, traversal and
//! export. Their definitions are in `extended/graph.json`.

use alloc::string::String;
use serde_json::Value;

use crate::graph::Graph;

/// Runs the graph tool `name` (arguments already checked against its schema): `None` if
/// `name` is not one of these tools, else the `CallToolResult` JSON or a failure text.
pub fn call(_graph: &Graph, _name: &str, _args: &Value) -> Option<Result<String, String>> {
    None
}
