//! The tool catalog and dispatch: JSON arguments in, `CallToolResult` JSON out.

pub mod args;
pub mod graph_tools;
pub mod limits;
pub mod output;
pub mod plan;
pub mod query;
pub mod search_tools;
pub mod view;
pub mod writes;

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::Deserialize;
use serde_json::Value;

use crate::graph::Graph;
use crate::validate::{self, Issue};
pub use plan::Plan;

/// The reference server's nine tools, verbatim.
const CATALOG_JSON: &str = include_str!("catalog.json");

/// The tools mcp-memory adds, after the nine: `{"tools": [...]}` each, in listing order.
const EXTENDED_JSON: [&str; 3] = [
    include_str!("extended/writes.json"),
    include_str!("extended/graph.json"),
    include_str!("extended/search.json"),
];

/// Optional arguments (and result fields) added to read_graph, search_nodes and open_nodes.
const READS_JSON: &str = include_str!("extended/reads.json");

/// Adds `extended/reads.json`'s properties to the bounded read tools: their arguments, their
/// results' top level, and entities that may come without observations (outline).
fn extend_reads(catalog: &mut Value) {
    let reads: Value = serde_json::from_str(READS_JSON).expect("extended/reads.json is valid");
    let Some(tools) = catalog["tools"].as_array_mut() else {
        return;
    };
    for tool in tools.iter_mut() {
        let listed = reads["tools"].as_array().into_iter().flatten();
        if !listed.into_iter().any(|n| *n == tool["name"]) {
            continue;
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
        if let Some(required) =
            tool["outputSchema"]["properties"]["entities"]["items"]["required"].as_array_mut()
        {
            required.retain(|r| r != "observations");
        }
    }
}

/// Tool definitions, parsed once.
pub struct Catalog {
    list_result: String,
    input_schemas: Vec<(String, Value)>,
}

impl Default for Catalog {
    fn default() -> Self {
        let mut catalog: Value = serde_json::from_str(CATALOG_JSON).expect("catalog.json is valid");
        extend_reads(&mut catalog);
        for extra in EXTENDED_JSON {
            let extra: Value = serde_json::from_str(extra).expect("extended/*.json is valid");
            let tools = extra["tools"]
                .as_array()
                .expect("extended/*.json lists tools");
            if let Some(list) = catalog["tools"].as_array_mut() {
                list.extend(tools.iter().cloned());
            }
        }
        let input_schemas = catalog["tools"]
            .as_array()
            .expect("catalog.json lists tools")
            .iter()
            .map(|t| {
                (
                    t["name"].as_str().unwrap_or("").to_string(),
                    t["inputSchema"].clone(),
                )
            })
            .collect();
        Catalog {
            list_result: output::compact(&catalog),
            input_schemas,
        }
    }
}

impl Catalog {
    /// The `tools/list` result JSON.
    pub fn list_result(&self) -> &str {
        &self.list_result
    }

    fn input_schema(&self, name: &str) -> Option<&Value> {
        self.input_schemas
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s)
    }
}

/// What a tool call amounts to.
pub enum Outcome {
    /// A finished result: a read, or a failure (`isError`).
    Done(String),
    /// A mutation to log and apply before replying.
    Change(Plan),
    /// Rewriting the log as the graph (the `compact` tool).
    Compact,
}

fn parse<'a, T: Deserialize<'a>>(args: &'a Value) -> Result<T, String> {
    T::deserialize(args).map_err(|e| e.to_string())
}

/// Validates the arguments against the tool's input schema and runs the tool.
pub fn run(catalog: &Catalog, graph: &Graph, name: &str, arguments: &Value) -> Outcome {
    let Some(schema) = catalog.input_schema(name) else {
        return Outcome::Done(output::failure(&format!(
            "MCP error -32602: Tool {name} not found"
        )));
    };
    let mut issues = Vec::new();
    validate::check(schema, Some(arguments), &mut Vec::new(), &mut issues);
    if !issues.is_empty() {
        let list: Vec<String> = issues.iter().map(Issue::message_at).collect();
        return Outcome::Done(output::failure(&format!(
            "MCP error -32602: Input validation error: Invalid arguments for tool {name}: {}",
            list.join("\n")
        )));
    }
    if let Err(e) = limits::check(arguments) {
        return Outcome::Done(output::failure(&format!(
            "Request limit exceeded in {name}: {e}"
        )));
    }
    dispatch(graph, name, arguments).unwrap_or_else(|e| Outcome::Done(output::failure(&e)))
}

fn dispatch(graph: &Graph, name: &str, a: &Value) -> Result<Outcome, String> {
    use Outcome::{Change, Done};
    use args::*;
    Ok(match name {
        "create_entities" => Change(plan::create_entities(
            graph,
            &parse::<CreateEntities>(a)?.entities,
        )),
        "create_relations" => Change(plan::create_relations(
            graph,
            &parse::<Relations>(a)?.relations,
        )),
        "add_observations" => Change(plan::add_observations(
            graph,
            &parse::<AddObservations>(a)?.observations,
        )?),
        "delete_entities" => Change(plan::delete_entities(
            graph,
            &parse::<DeleteEntities>(a)?.entity_names,
        )),
        "delete_observations" => Change(plan::delete_observations(
            graph,
            &parse::<DeleteObservations>(a)?.deletions,
        )),
        "delete_relations" => Change(plan::delete_relations(
            graph,
            &parse::<Relations>(a)?.relations,
        )),
        "read_graph" => Done(query::read_graph(graph, &parse(a)?)?),
        "search_nodes" => Done(query::search_nodes(
            graph,
            parse::<SearchNodes>(a)?.query,
            &parse(a)?,
        )?),
        "open_nodes" => Done(query::open_nodes(
            graph,
            &parse::<OpenNodes>(a)?.names,
            &parse(a)?,
        )?),
        "upsert_entities" => Change(writes::upsert_entities(
            graph,
            &parse::<writes::Upsert>(a)?.entities,
        )),
        "merge_entities" => {
            let merge = parse::<writes::Merge>(a)?;
            Change(writes::merge_entities(graph, merge.source, merge.target)?)
        }
        "compact" => Outcome::Compact,
        _ => match graph_tools::call(graph, name, a).or_else(|| search_tools::call(graph, name, a))
        {
            Some(result) => Done(result?),
            None => return Err(format!("MCP error -32602: Tool {name} not found")),
        },
    })
}
