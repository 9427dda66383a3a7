//! Read-only graph tools beyond the reference's nine: lookups, statistics, traversal and
//! export. Their definitions are in `extended/graph.json`.
//!
//! Conventions shared by these tools:
//!
//! - Names are compared exactly. Where a name stands for one entity, it is the oldest entity
//!   with that name ([`Graph::first_named`]): names repeat only in imported reference files.
//! - Traversal follows relations by name. A relation may name something that is no entity
//!   (a dangling endpoint): such a name is still a node that walks reach and pass through; it
//!   shows up as a name whose entity is `null` (get_neighbors), as a path step (find_path,
//!   find_all_paths), or only inside the relations (extract_subgraph, like read_graph).
//! - A name a traversal starts from must be an entity or an endpoint of some relation; any
//!   other name is "Entity with name X not found", as the reference words it.
//! - Limits (depths, path counts) are checked, never clamped: exceeding one is a tool error
//!   naming the limit. The schema validator checks only types, so these tools also check the
//!   `enum`, `minimum` and `maximum` their schemas declare.

mod export;
mod lookup;
mod traverse;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;
use serde_json::Value;

use super::output;
use crate::graph::Graph;
use crate::intern::Sym;

/// Runs the graph tool `name` (arguments already checked against its schema): `None` if
/// `name` is not one of these tools, else the `CallToolResult` JSON or a failure text.
pub fn call(graph: &Graph, name: &str, args: &Value) -> Option<Result<String, String>> {
    let a = Args(args);
    Some(match name {
        "get_entity" => lookup::get_entity(graph, a),
        "batch_get_entities" => lookup::batch_get_entities(graph, a),
        "entity_exists" => lookup::entity_exists(graph, a),
        "graph_stats" => Ok(lookup::graph_stats(graph)),
        "search_relations" => lookup::search_relations(graph, a),
        "describe_entity" => lookup::describe_entity(graph, a),
        "degree" => lookup::degree(graph, a),
        "list_entity_types" => Ok(lookup::list_entity_types(graph)),
        "list_relation_types" => Ok(lookup::list_relation_types(graph)),
        "find_path" => traverse::find_path(graph, a),
        "find_all_paths" => traverse::find_all_paths(graph, a),
        "extract_subgraph" => traverse::extract_subgraph(graph, a),
        "get_neighbors" => traverse::get_neighbors(graph, a),
        "export_graph" => export::export_graph(graph, a),
        _ => return None,
    })
}

/// A success whose text is the pretty JSON of its structuredContent.
fn ok<S: Serialize>(structured: &S) -> Result<String, String> {
    Ok(output::success(&output::pretty(structured), structured))
}

/// The reference's words for a name that is not there.
fn not_found(name: &str) -> String {
    format!("Entity with name {name} not found")
}

/// The handle of a name traversal can start from: an entity's name or a relation endpoint.
fn known(graph: &Graph, name: &str) -> Result<Sym, String> {
    match graph.strings().lookup(name) {
        Some(sym) if !graph.named(name).is_empty() || graph.has_relations_at(name) => Ok(sym),
        _ => Err(not_found(name)),
    }
}

/// Which relations a walk follows from a name.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Direction {
    /// From the name to the relation's `to`.
    Out,
    /// From the name back to the relation's `from`.
    In,
    /// Either way.
    Both,
}

/// Tool arguments, already checked for types (but read defensively all the same).
#[derive(Copy, Clone)]
struct Args<'a>(&'a Value);

impl<'a> Args<'a> {
    /// An optional string argument.
    fn opt_str(self, key: &str) -> Option<&'a str> {
        self.0.get(key).and_then(Value::as_str)
    }

    /// A required string argument.
    fn str(self, key: &str) -> Result<&'a str, String> {
        self.opt_str(key)
            .ok_or_else(|| format!("{key} must be a string"))
    }

    /// A required array of strings.
    fn strs(self, key: &str) -> Result<Vec<&'a str>, String> {
        let items = self
            .0
            .get(key)
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{key} must be an array of strings"))?;
        items
            .iter()
            .map(|v| {
                v.as_str()
                    .ok_or_else(|| format!("{key} must be an array of strings"))
            })
            .collect()
    }

    /// An optional integer in `min..=max` (no upper bound when `max` is `None`).
    fn int(
        self,
        key: &str,
        default: usize,
        min: usize,
        max: Option<usize>,
    ) -> Result<usize, String> {
        let Some(value) = self.0.get(key) else {
            return Ok(default);
        };
        let n = match value.as_u64() {
            Some(n) => n,
            None if value.as_i64().is_some() => {
                return Err(format!("{key} must be at least {min}"));
            }
            None => return Err(format!("{key} must be an integer")),
        };
        if n < min as u64 {
            return Err(format!("{key} must be at least {min}"));
        }
        match max {
            Some(max) if n > max as u64 => Err(format!("{key} must be at most {max}")),
            _ => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
        }
    }

    /// An optional `out` / `in` / `both` argument (default `both`).
    fn direction(self, key: &str) -> Result<Direction, String> {
        match self.0.get(key) {
            None => Ok(Direction::Both),
            Some(v) => match v.as_str() {
                Some("out") => Ok(Direction::Out),
                Some("in") => Ok(Direction::In),
                Some("both") => Ok(Direction::Both),
                _ => Err(format!(r#"{key} must be "out", "in" or "both""#)),
            },
        }
    }
}
