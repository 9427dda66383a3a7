//! The reference server's nine tools, which every profile lists: its six changes (`plan`),
//! planned against the graph and logged as one record each, and its three reads (`query`),
//! bounded by a `view` when the client asks (`detail`: what `include` adds).
//!
//! `catalog.json` holds its definitions verbatim; `reads.json` and `items.json` the optional
//! arguments this server adds to them (listed by every profile but `reference`).

pub mod detail;
pub mod plan;
pub mod query;
pub mod view;

use alloc::vec::Vec;
use serde_json::Value;

use super::catalog::parse_definitions;
use super::{Dialect, Surface, ToolDef, graph, write};

/// The reference server's nine tools, verbatim.
const CATALOG_JSON: &str = include_str!("catalog.json");

/// Optional arguments (and result fields) added to read_graph, search_nodes and open_nodes.
const READS_JSON: &str = include_str!("reads.json");

/// Optional item properties added to create_entities, add_observations and create_relations.
const ITEMS_JSON: &str = include_str!("items.json");

/// The nine's names, in the reference's listing order.
pub const NINE: [&str; 9] = [
    "create_entities",
    "create_relations",
    "add_observations",
    "delete_entities",
    "delete_observations",
    "delete_relations",
    "read_graph",
    "search_nodes",
    "open_nodes",
];

/// The nine, in the reference's listing order.
pub const TOOLS: &[ToolDef] = &[
    write("create_entities", plan::create_entities),
    write("create_relations", plan::create_relations),
    write("add_observations", plan::add_observations),
    write("delete_entities", plan::delete_entities),
    write("delete_observations", plan::delete_observations),
    write("delete_relations", plan::delete_relations),
    graph("read_graph", query::read_graph),
    graph("search_nodes", query::search_nodes),
    graph("open_nodes", query::open_nodes),
];

/// The reference's surface.
pub const SURFACE: Surface = Surface {
    dialect: Dialect::Reference,
    tools: TOOLS,
    definitions,
};

/// The nine's definitions as the reference lists them.
pub fn listed() -> Vec<Value> {
    parse_definitions(&[CATALOG_JSON])
}

/// The nine's definitions with the optional arguments this server adds.
fn definitions() -> Vec<Value> {
    let mut tools = listed();
    let reads: Value = serde_json::from_str(READS_JSON).expect("reads.json is valid");
    let items: Value = serde_json::from_str(ITEMS_JSON).expect("items.json is valid");
    for tool in &mut tools {
        extend_reads(tool, &reads);
        extend_items(tool, &items);
    }
    tools
}

/// Adds `reads.json`'s properties to a bounded read tool: its arguments, its result's top
/// level, entities and relations (detail), and entities that may come without observations
/// (outline).
fn extend_reads(tool: &mut Value, reads: &Value) {
    let listed = reads["tools"].as_array().into_iter().flatten();
    if !listed.into_iter().any(|n| *n == tool["name"]) {
        return;
    }
    let additions = [
        ("inputSchema", &reads["inputProperties"]),
        ("outputSchema", &reads["outputProperties"]),
    ];
    for (schema, extra) in additions {
        if let (Some(props), Some(extra)) = (
            tool[schema]["properties"].as_object_mut(),
            extra.as_object(),
        ) {
            props.extend(extra.clone());
        }
    }
    let items = [
        ("entities", &reads["entityOutputProperties"]),
        ("relations", &reads["relationOutputProperties"]),
    ];
    for (list, extra) in items {
        let props = &mut tool["outputSchema"]["properties"][list]["items"]["properties"];
        if let (Some(props), Some(extra)) = (props.as_object_mut(), extra.as_object()) {
            props.extend(extra.clone());
        }
    }
    if let Some(required) =
        tool["outputSchema"]["properties"]["entities"]["items"]["required"].as_array_mut()
    {
        required.retain(|r| r != "observations");
    }
}

/// Adds `items.json`'s properties to the items of a tool's array arguments
/// (`create_entities.entities[]`, …).
fn extend_items(tool: &mut Value, items: &Value) {
    let Some(name) = tool["name"].as_str() else {
        return;
    };
    let Some(arguments) = items[name].as_object() else {
        return;
    };
    for (argument, extra) in arguments {
        let props = &mut tool["inputSchema"]["properties"][argument]["items"]["properties"];
        if let (Some(props), Some(extra)) = (props.as_object_mut(), extra.as_object()) {
            props.extend(extra.clone());
        }
    }
}
