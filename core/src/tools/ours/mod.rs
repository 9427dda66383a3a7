//! This server's tools beyond the nine: the Rust seed's names (`writes`, `graph`, `compact`),
//! ranked `search`, the richer model (`meta`: update_entities, end_relations, reflections,
//! forget) and the history (`history`, `undo`). Definitions: `*.json` beside them.

pub mod graph;
pub mod history;
pub mod meta;
pub mod search;
pub mod writes;

use alloc::vec::Vec;
use serde_json::Value;

use super::catalog::parse_definitions;
use super::{Dialect, Surface, ToolDef, memory, read, write};

/// What the `default` profile lists besides the nine.
pub const DEFAULT: [&str; 3] = ["search", "history", "undo"];

/// What the Rust `mcp-memory` 3.x lists besides the nine (the `rust` profile).
pub const RUST_SEED: [&str; 17] = [
    "upsert_entities",
    "merge_entities",
    "compact",
    "get_entity",
    "batch_get_entities",
    "entity_exists",
    "graph_stats",
    "search_relations",
    "describe_entity",
    "degree",
    "find_path",
    "find_all_paths",
    "extract_subgraph",
    "get_neighbors",
    "list_entity_types",
    "list_relation_types",
    "export_graph",
];

/// This server's tools, in listing order.
pub const TOOLS: &[ToolDef] = &[
    write("upsert_entities", writes::upsert_entities),
    write("merge_entities", writes::merge_entities),
    memory("compact", writes::compact, true),
    read("get_entity", graph::get_entity),
    read("batch_get_entities", graph::batch_get_entities),
    read("entity_exists", graph::entity_exists),
    read("graph_stats", graph::graph_stats),
    read("search_relations", graph::search_relations),
    read("describe_entity", graph::describe_entity),
    read("degree", graph::degree),
    read("find_path", graph::find_path),
    read("find_all_paths", graph::find_all_paths),
    read("extract_subgraph", graph::extract_subgraph),
    read("get_neighbors", graph::get_neighbors),
    read("list_entity_types", graph::list_entity_types),
    read("list_relation_types", graph::list_relation_types),
    read("export_graph", graph::export_graph),
    read("search", search::search),
    write("update_entities", meta::update_entities),
    write("end_relations", meta::end_relations),
    write("add_reflection", meta::add_reflection),
    read("search_reflections", meta::search_reflections),
    memory("forget", meta::forget, true),
    memory("history", history::history, false),
    memory("undo", history::undo, true),
];

/// This server's surface.
pub const SURFACE: Surface = Surface {
    dialect: Dialect::Ours,
    tools: TOOLS,
    definitions,
};

fn definitions() -> Vec<Value> {
    parse_definitions(&[
        include_str!("writes.json"),
        include_str!("graph.json"),
        include_str!("search.json"),
        include_str!("model.json"),
        include_str!("history.json"),
    ])
}
