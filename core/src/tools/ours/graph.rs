//! Read-only graph tools beyond the reference's nine: lookups, statistics, traversal and
//! export. Their definitions are in `graph.json`.
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
//!   naming the limit. The schemas declare them (`minimum`, `maximum`, `enum`) and the
//!   validator enforces them before a tool runs.

mod export;
mod lookup;
mod traverse;

use alloc::format;
use alloc::string::String;
use serde::{Deserialize, Serialize};

use crate::capabilities::walk;
use crate::graph::Graph;
use crate::intern::Sym;
use crate::json;
use crate::tools::output;

pub use export::export_graph;
pub use lookup::{
    batch_get_entities, degree, describe_entity, entity_exists, get_entity, graph_stats,
    list_entity_types, list_relation_types, search_relations,
};
pub use traverse::{extract_subgraph, find_all_paths, find_path, get_neighbors};

/// A success whose text is the pretty JSON of its structuredContent.
fn ok<S: Serialize>(structured: &S) -> Result<String, String> {
    Ok(output::success(&json::pretty(structured), structured))
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

/// Which relations a walk follows from a name, as the arguments say it.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Direction {
    /// From the name to the relation's `to`.
    Out,
    /// From the name back to the relation's `from`.
    In,
    /// Either way.
    #[default]
    Both,
}

/// The arguments of the tools that take one name.
#[derive(Deserialize)]
struct Name<'a> {
    name: &'a str,
}

impl From<Direction> for walk::Direction {
    fn from(d: Direction) -> Self {
        match d {
            Direction::Out => walk::Direction::Out,
            Direction::In => walk::Direction::In,
            Direction::Both => walk::Direction::Both,
        }
    }
}
