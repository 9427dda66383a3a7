//! Read-only tools: read_graph, search_nodes and open_nodes.

use alloc::string::String;
use alloc::vec::Vec;
use memchr::memmem::Finder;

use super::output;
use crate::graph::{EntityId, Graph, RelationId};

fn everything(graph: &Graph) -> (Vec<EntityId>, Vec<RelationId>) {
    (
        graph.entities().map(|(id, _)| id).collect(),
        graph.relations().map(|(id, _)| id).collect(),
    )
}

/// read_graph: every entity, then every relation, in insertion order.
pub fn read_graph(graph: &Graph) -> String {
    let (entities, relations) = everything(graph);
    output::graph_result(graph, &entities, &relations)
}

/// The text read_graph returns (and `memory://knowledge-graph` holds), as a JSON string.
pub fn read_graph_text_literal(graph: &Graph) -> String {
    let (entities, relations) = everything(graph);
    output::graph_text_literal(graph, &entities, &relations)
}

/// Entities and the relations touching their names, as a tool result.
fn subgraph(graph: &Graph, entities: &[EntityId]) -> String {
    let names = entities.iter().map(|&id| graph.entity(id).name);
    let relations = graph.relations_touching(names);
    output::graph_result(graph, entities, &relations)
}

/// search_nodes: entities whose name, type or an observation contains the query, compared
/// after JavaScript's `toLowerCase` (not case folding); the empty query matches everything.
pub fn search_nodes(graph: &Graph, query: &str) -> String {
    let needle = query.to_lowercase();
    let finder = Finder::new(needle.as_bytes());
    let s = graph.strings();
    let hit = |text: &str| finder.find(text.as_bytes()).is_some();
    let found: Vec<EntityId> = graph
        .entities()
        .filter(|(_, e)| {
            hit(s.lower(e.name))
                || hit(s.lower(e.entity_type))
                || e.observations.iter().any(|&o| hit(s.lower(o)))
        })
        .map(|(id, _)| id)
        .collect();
    subgraph(graph, &found)
}

/// open_nodes: the entities with these exact names, in graph order, and every relation
/// starting or ending at one of them.
pub fn open_nodes(graph: &Graph, names: &[&str]) -> String {
    let mut found: Vec<EntityId> = names
        .iter()
        .flat_map(|n| graph.named(n).iter().copied())
        .collect();
    found.sort_unstable();
    found.dedup();
    subgraph(graph, &found)
}
