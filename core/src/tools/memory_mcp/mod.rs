//! The TypeScript seed's ("Memory MCP" v10) tools in its argument and result shapes, under
//! profile `memory-mcp`: its shapes of the reference's (`nine`), its tags and importance (`tags`), tag aliases (`aliases`), saved
//! searches (`saved`), hierarchy, analytics, date search (`dates`), hygiene (validation,
//! duplicates), merging (`compression`), archive, search family (`search`, `semantic`,
//! `query`), `normalize`, and its import and export (`import`, `export`, `formats`).
//! Definitions: `*.json` beside them.
//!
//! What its tools share is here: finding an entity by name, with its error; its shapes of
//! entities and relations; and answers as it prints them (the text
//! `JSON.stringify(x, null, 2)`; structuredContent the same object, or a list under one key,
//! since structuredContent is always an object).

pub mod aliases;
pub mod analytics;
pub mod archive;
pub mod compression;
pub mod dates;
pub mod export;
pub mod formats;
pub mod hierarchy;
pub mod hygiene;
pub mod import;
pub mod nine;
pub mod normalize;
pub mod query;
pub mod saved;
pub mod search;
pub mod semantic;
pub mod tags;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;
use serde::ser::SerializeMap;

use serde_json::Value;

use super::catalog::parse_definitions;
use super::{Dialect, Plan, Surface, ToolDef, output, read, write};
use crate::graph::{EntityId, Graph};
use crate::json;
use crate::memory::Change;
use crate::model::EntityPatch;
use crate::record::Op;

pub(crate) use crate::jsonl::{MemoryMcpEntity as EntityJson, MemoryMcpRelation as RelationJson};

/// The entity called `name` (the oldest of that name), or the seed's error.
pub fn named(g: &Graph, name: &str) -> Result<EntityId, String> {
    g.first_named(name)
        .ok_or_else(|| format!("Entity \"{name}\" not found"))
}

/// The answer `result`, an object.
pub fn answer<T: Serialize>(result: &T) -> String {
    output::success(&json::pretty(result), result)
}

/// The answer `items`, a list: the text is the list, structuredContent `{key: items}`.
pub fn answer_list<T: Serialize>(key: &str, items: &[T]) -> String {
    output::success(&json::pretty(items), &Keyed(key, items))
}

/// A plan changing entities' metadata, answered with `result`.
pub fn planned(patches: Vec<EntityPatch<'_>>, result: String) -> Plan {
    Plan {
        change: Change::one(patches, Op::PatchEntities),
        result,
    }
}

/// An object of one entry.
struct Keyed<'a, T>(&'a str, T);

impl<T: Serialize> Serialize for Keyed<'_, T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry(self.0, &self.1)?;
        map.end()
    }
}

/// Its tools, in listing order.
pub const TOOLS: &[ToolDef] = &[
    write("create_entities", nine::create_entities),
    write("create_relations", nine::create_relations),
    write("add_observations", nine::add_observations),
    write("delete_entities", nine::delete_entities),
    write("delete_relations", nine::delete_relations),
    read("read_graph", nine::read_graph),
    read("search_nodes", nine::search_nodes),
    read("open_nodes", nine::open_nodes),
    write("save_search", saved::save_search),
    write("execute_saved_search", saved::execute_saved_search),
    read("list_saved_searches", saved::list_saved_searches),
    write("delete_saved_search", saved::delete_saved_search),
    write("update_saved_search", saved::update_saved_search),
    write("add_tags", tags::add_tags),
    write("remove_tags", tags::remove_tags),
    write("set_importance", tags::set_importance),
    write(
        "add_tags_to_multiple_entities",
        tags::add_tags_to_multiple_entities,
    ),
    write("replace_tag", tags::replace_tag),
    write("merge_tags", tags::merge_tags),
    write("add_tag_alias", aliases::add_tag_alias),
    read("list_tag_aliases", aliases::list_tag_aliases),
    write("remove_tag_alias", aliases::remove_tag_alias),
    read("get_aliases_for_tag", aliases::get_aliases_for_tag),
    read("resolve_tag", aliases::resolve_tag),
    write("set_entity_parent", hierarchy::set_entity_parent),
    read("get_children", hierarchy::get_children),
    read("get_parent", hierarchy::get_parent),
    read("get_ancestors", hierarchy::get_ancestors),
    read("get_descendants", hierarchy::get_descendants),
    read("get_subtree", hierarchy::get_subtree),
    read("get_root_entities", hierarchy::get_root_entities),
    read("get_entity_depth", hierarchy::get_entity_depth),
    write("move_entity", hierarchy::move_entity),
    read("get_graph_stats", analytics::get_graph_stats),
    read("find_shortest_path", analytics::find_shortest_path),
    read(
        "get_connected_components",
        analytics::get_connected_components,
    ),
    read("get_centrality", analytics::get_centrality),
    read("search_by_date_range", dates::search_by_date_range),
    read("validate_graph", hygiene::validate_graph),
    read("find_duplicates", hygiene::find_duplicates),
    write("merge_entities", compression::merge_entities),
    write("compress_graph", compression::compress_graph),
    read("find_all_paths", analytics::find_all_paths),
    write("archive_entities", archive::archive_entities),
    read("list_archived", archive::list_archived),
    write("restore_archived", archive::restore_archived),
    read("search_nodes_ranked", search::search_nodes_ranked),
    read("boolean_search", search::boolean_search),
    read("fuzzy_search", search::fuzzy_search),
    read("get_search_suggestions", search::get_search_suggestions),
    read("semantic_search", semantic::semantic_search),
    read("find_similar_entities", semantic::find_similar_entities),
    read("index_embeddings", semantic::index_embeddings),
    read("hybrid_search", semantic::hybrid_search),
    read("search_auto", query::search_auto),
    read("analyze_query", query::analyze_query),
    read("smart_search", query::smart_search),
    write("normalize_observations", normalize::normalize_observations),
    write("import_graph", import::import_graph),
    read("export_graph", export::export_graph),
];

/// Its surface.
pub const SURFACE: Surface = Surface {
    dialect: Dialect::MemoryMcp,
    tools: TOOLS,
    definitions,
};

fn definitions() -> Vec<Value> {
    parse_definitions(&[
        include_str!("nine.json"),
        include_str!("saved.json"),
        include_str!("tags.json"),
        include_str!("aliases.json"),
        include_str!("hierarchy.json"),
        include_str!("analytics.json"),
        include_str!("hygiene.json"),
        include_str!("compression.json"),
        include_str!("archive.json"),
        include_str!("search.json"),
        include_str!("io.json"),
        include_str!("export.json"),
    ])
}
