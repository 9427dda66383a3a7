//! The tools: their catalog (what `tools/list` shows), the one table that runs them
//! ([`TOOLS`]), and the checks every call passes first. JSON arguments in, `CallToolResult`
//! JSON out.
//!
//! A call is validated against its tool's input schema — types as the reference reports
//! them, then the constraints the schema declares and the request limits (`limits.rs`) —
//! before its tool runs, so no tool checks its arguments again.

pub mod algorithms;
pub mod analytics;
pub mod archive;
pub mod args;
pub mod compression;
pub mod date_search;
pub mod export;
pub mod filter;
pub mod formats;
pub mod graph_tools;
pub mod hierarchy;
pub mod history;
pub mod hygiene;
pub mod import;
pub mod limits;
pub mod memory_mcp;
pub mod meta;
pub mod normalize;
pub mod output;
pub mod plan;
pub mod profile;
pub mod py;
pub mod py_hygiene;
pub mod py_migrate;
pub mod py_semantic;
pub mod query;
pub mod query_ts;
pub mod saved_searches;
pub mod search_tools;
pub mod search_ts;
pub mod semantic_ts;
pub mod tag_aliases;
pub mod tag_tools;
pub mod validate;
pub mod view;
pub mod writes;

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde_json::Value;

use crate::graph::Graph;
use crate::index::Indexes;
use crate::json;
use crate::memory::Change;
use crate::model::Provenance;
use profile::Selection;
use validate::{Issue, Problem};

/// The reference server's nine tools, verbatim.
const CATALOG_JSON: &str = include_str!("catalog.json");

/// The tools mcp-memory adds, after the nine: `{"tools": [...]}` each, in listing order.
const EXTENDED_JSON: [&str; 19] = [
    include_str!("extended/writes.json"),
    include_str!("extended/graph.json"),
    include_str!("extended/search.json"),
    include_str!("extended/model.json"),
    include_str!("extended/history.json"),
    include_str!("extended/saved_searches.json"),
    include_str!("extended/tags.json"),
    include_str!("extended/tag_aliases.json"),
    include_str!("extended/hierarchy.json"),
    include_str!("extended/analytics.json"),
    include_str!("extended/hygiene.json"),
    include_str!("extended/compression.json"),
    include_str!("extended/archive.json"),
    include_str!("extended/search_ts.json"),
    include_str!("extended/io.json"),
    include_str!("extended/export_memory_mcp.json"),
    include_str!("extended/py.json"),
    include_str!("extended/py_hygiene.json"),
    include_str!("extended/py_migrate.json"),
];

/// The definitions listed for a name whose two shapes a memory both answers
/// ([`Shape`]): `{"tools": [...]}`.
const EITHER_JSON: &str = include_str!("extended/either.json");

/// Optional arguments (and result fields) added to read_graph, search_nodes and open_nodes.
const READS_JSON: &str = include_str!("extended/reads.json");

/// Optional item properties added to create_entities, add_observations and create_relations.
const ITEMS_JSON: &str = include_str!("extended/items.json");

/// What a tool reads: the graph and its indexes, and who calls.
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    /// The graph as it stands.
    pub graph: &'a Graph,
    /// Its search indexes.
    pub indexes: &'a Indexes,
    /// Who calls: the client, its session, the host's actor.
    pub by: Provenance<'a>,
    /// The time a change this call makes carries (`0`: not known).
    pub now: crate::model::Millis,
    /// Where the call notes the entities it returned (the usage counts salience reads).
    pub uses: &'a Uses,
}

/// The entities a call returned, group by group (each group: entities returned together),
/// for [`crate::Memory::note_uses`].
#[derive(Default)]
pub struct Uses(core::cell::RefCell<Vec<Vec<String>>>);

impl Uses {
    /// Notes that these entities were returned together.
    pub fn note<'n>(&self, names: impl IntoIterator<Item = &'n str>) {
        let group: Vec<String> = names.into_iter().map(String::from).collect();
        if !group.is_empty() {
            self.0.borrow_mut().push(group);
        }
    }

    /// The groups noted, oldest first.
    pub fn into_groups(self) -> Vec<Vec<String>> {
        self.0.into_inner()
    }
}

/// A planned change: what to log (nothing for a no-op) and the tool result to send once it
/// is applied. The record is applied from its bytes, exactly as replay will apply it.
pub struct Plan {
    /// The change to log and apply.
    pub change: Change,
    /// The `CallToolResult` JSON to reply with once the change is applied.
    pub result: String,
}

/// A read's `CallToolResult`: written, or entities and relations still to write (a host
/// may send a large answer on a piece at a time as it is written).
pub enum Answer {
    /// The result's JSON.
    Text(String),
    /// The result of these entities and relations, after [`output::GRAPH_RESULT_HEAD`].
    Graph(output::GraphText),
}

impl Answer {
    /// The result's JSON, written whole.
    pub fn into_text(self, graph: &Graph) -> String {
        match self {
            Answer::Text(text) => text,
            Answer::Graph(mut text) => {
                let mut out =
                    String::with_capacity(output::GRAPH_RESULT_HEAD.len() + text.estimate(graph));
                out.push_str(output::GRAPH_RESULT_HEAD);
                text.write_all(graph, &mut out);
                out
            }
        }
    }
}

/// How a tool runs. Arguments have passed their schema (types and constraints).
#[derive(Clone, Copy)]
pub enum Run {
    /// A read: the `CallToolResult` JSON, or a failure text.
    Read(fn(Ctx<'_>, &Value) -> Result<String, String>),
    /// A read answering with entities and relations (read_graph, search_nodes, open_nodes).
    Graph(fn(Ctx<'_>, &Value) -> Result<Answer, String>),
    /// A change, planned against the graph without changing it.
    Write(fn(Ctx<'_>, &Value) -> Result<Plan, String>),
    /// Rewriting the log as the graph (the `compact` tool).
    Compact,
    /// A change after which the log is compacted at once, and names whose bytes must leave
    /// it (the `forget` tool).
    Forget(fn(Ctx<'_>, &Value) -> Result<Forgetting, String>),
    /// A look at the log's history (the `history` tool).
    History,
    /// Undoing a change (the `undo` tool).
    Undo,
    /// Importing a file the host reads by the path the user names (the `migrate` tool).
    Migrate,
}

impl Run {
    /// Whether a call may change the memory (or its log): everything but the reads.
    pub fn mutates(&self) -> bool {
        !matches!(self, Run::Read(_) | Run::Graph(_) | Run::History)
    }
}

/// A planned forgetting: the change, and the names whose bytes must leave the log.
pub type Forgetting = (Plan, Vec<String>);

/// Whose argument and result shapes a tool has, where seeds give one name different ones
/// (`merge_entities`, `open_nodes`, …): each profile lists its seed's, and a memory
/// listing several answers a call in the shape its arguments fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// This server's (for the Rust seed's names, the Rust seed's).
    Ours,
    /// The TypeScript seed's ("Memory MCP").
    MemoryMcp,
    /// The Python seed's ("MCP Memory v2").
    McpMemoryPy,
}

/// A tool: its name, as in the catalog, how it runs, and whose shapes it has.
pub struct ToolDef {
    /// The tool's name.
    pub name: &'static str,
    /// How it runs.
    pub run: Run,
    /// Whose shapes it has.
    pub shape: Shape,
}

impl ToolDef {
    /// The same tool in the TypeScript seed's shapes.
    const fn memory_mcp(self) -> ToolDef {
        ToolDef {
            shape: Shape::MemoryMcp,
            ..self
        }
    }

    /// The same tool in the Python seed's shapes.
    const fn mcp_memory_py(self) -> ToolDef {
        ToolDef {
            shape: Shape::McpMemoryPy,
            ..self
        }
    }

    /// Whether another tool of the same name has `shape`.
    pub fn has_twin(&self, shape: Shape) -> bool {
        TOOLS
            .iter()
            .any(|t| t.name == self.name && t.shape == shape && t.shape != self.shape)
    }
}

const fn tool(name: &'static str, run: Run) -> ToolDef {
    ToolDef {
        name,
        run,
        shape: Shape::Ours,
    }
}

const fn read(name: &'static str, f: fn(Ctx<'_>, &Value) -> Result<String, String>) -> ToolDef {
    tool(name, Run::Read(f))
}

const fn graph(name: &'static str, f: fn(Ctx<'_>, &Value) -> Result<Answer, String>) -> ToolDef {
    tool(name, Run::Graph(f))
}

const fn write(name: &'static str, f: fn(Ctx<'_>, &Value) -> Result<Plan, String>) -> ToolDef {
    tool(name, Run::Write(f))
}

/// Every tool, in the catalog's order (a test holds the two together).
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
    write("upsert_entities", writes::upsert_entities),
    write("merge_entities", writes::merge_entities),
    tool("compact", Run::Compact),
    read("get_entity", graph_tools::get_entity),
    read("batch_get_entities", graph_tools::batch_get_entities),
    read("entity_exists", graph_tools::entity_exists),
    read("graph_stats", graph_tools::graph_stats),
    read("search_relations", graph_tools::search_relations),
    read("describe_entity", graph_tools::describe_entity),
    read("degree", graph_tools::degree),
    read("find_path", graph_tools::find_path),
    read("find_all_paths", graph_tools::find_all_paths),
    read("extract_subgraph", graph_tools::extract_subgraph),
    read("get_neighbors", graph_tools::get_neighbors),
    read("list_entity_types", graph_tools::list_entity_types),
    read("list_relation_types", graph_tools::list_relation_types),
    read("export_graph", graph_tools::export_graph),
    read("search", search_tools::search),
    write("update_entities", meta::update_entities),
    write("end_relations", meta::end_relations),
    write("add_reflection", meta::add_reflection),
    read("search_reflections", meta::search_reflections),
    tool("forget", Run::Forget(meta::forget)),
    tool("history", Run::History),
    tool("undo", Run::Undo),
    write("save_search", saved_searches::save_search),
    write("execute_saved_search", saved_searches::execute_saved_search),
    read("list_saved_searches", saved_searches::list_saved_searches),
    write("delete_saved_search", saved_searches::delete_saved_search),
    write("update_saved_search", saved_searches::update_saved_search),
    write("add_tags", tag_tools::add_tags),
    write("remove_tags", tag_tools::remove_tags),
    write("set_importance", tag_tools::set_importance),
    write(
        "add_tags_to_multiple_entities",
        tag_tools::add_tags_to_multiple_entities,
    ),
    write("replace_tag", tag_tools::replace_tag),
    write("merge_tags", tag_tools::merge_tags),
    write("add_tag_alias", tag_aliases::add_tag_alias),
    read("list_tag_aliases", tag_aliases::list_tag_aliases),
    write("remove_tag_alias", tag_aliases::remove_tag_alias),
    read("get_aliases_for_tag", tag_aliases::get_aliases_for_tag),
    read("resolve_tag", tag_aliases::resolve_tag),
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
    read("search_by_date_range", date_search::search_by_date_range),
    read("validate_graph", hygiene::validate_graph),
    read("find_duplicates", hygiene::find_duplicates),
    write("merge_entities", compression::merge_entities).memory_mcp(),
    write("compress_graph", compression::compress_graph),
    read("find_all_paths", analytics::find_all_paths).memory_mcp(),
    write("archive_entities", archive::archive_entities),
    read("list_archived", archive::list_archived),
    write("restore_archived", archive::restore_archived),
    read("search_nodes_ranked", search_ts::search_nodes_ranked),
    read("boolean_search", search_ts::boolean_search),
    read("fuzzy_search", search_ts::fuzzy_search),
    read("get_search_suggestions", search_ts::get_search_suggestions),
    read("semantic_search", semantic_ts::semantic_search),
    read("find_similar_entities", semantic_ts::find_similar_entities),
    read("index_embeddings", semantic_ts::index_embeddings),
    read("hybrid_search", semantic_ts::hybrid_search),
    read("search_auto", query_ts::search_auto),
    read("analyze_query", query_ts::analyze_query),
    read("smart_search", query_ts::smart_search),
    write("normalize_observations", normalize::normalize_observations),
    write("import_graph", import::import_graph),
    read("export_graph", export::export_graph).memory_mcp(),
    write("create_entities", py::create_entities).mcp_memory_py(),
    write("create_relations", py::create_relations).mcp_memory_py(),
    write("add_observations", py::add_observations).mcp_memory_py(),
    write("delete_observations", py::delete_observations).mcp_memory_py(),
    read("search_nodes", py::search_nodes).mcp_memory_py(),
    read("open_nodes", py::open_nodes).mcp_memory_py(),
    write("end_relation", py::end_relation),
    write("add_reflection", py::add_reflection).mcp_memory_py(),
    read("search_reflections", py::search_reflections).mcp_memory_py(),
    read("search_semantic", py_semantic::search_semantic),
    read("find_split_candidates", py_hygiene::find_split_candidates),
    read("analyze_entity_split", py_hygiene::analyze_entity_split),
    read(
        "propose_entity_split_tool",
        py_hygiene::propose_entity_split_tool,
    ),
    write(
        "execute_entity_split_tool",
        py_hygiene::execute_entity_split_tool,
    ),
    read(
        "find_duplicate_observations",
        py_hygiene::find_duplicate_observations,
    ),
    read("consolidation_report", py_hygiene::consolidation_report),
    tool("migrate", Run::Migrate),
];

/// Adds `extended/reads.json`'s properties to the bounded read tools: their arguments, their
/// results' top level, entities and relations (detail), and entities that may come without
/// observations (outline).
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
}

/// Adds `extended/items.json`'s properties to the items of three of the nine's array
/// arguments (`create_entities.entities[]`, …).
fn extend_items(catalog: &mut Value) {
    let items: Value = serde_json::from_str(ITEMS_JSON).expect("extended/items.json is valid");
    let Some(tools) = catalog["tools"].as_array_mut() else {
        return;
    };
    for tool in tools.iter_mut() {
        let Some(name) = tool["name"].as_str() else {
            continue;
        };
        let Some(arguments) = items[name].as_object() else {
            continue;
        };
        for (argument, extra) in arguments {
            let props = &mut tool["inputSchema"]["properties"][argument]["items"]["properties"];
            if let (Some(props), Some(extra)) = (props.as_object_mut(), extra.as_object()) {
                props.extend(extra.clone());
            }
        }
    }
}

/// The catalog's tool definitions, in listing order.
fn definitions() -> Vec<Value> {
    let mut catalog: Value = serde_json::from_str(CATALOG_JSON).expect("catalog.json is valid");
    extend_reads(&mut catalog);
    extend_items(&mut catalog);
    let mut tools = match catalog["tools"].take() {
        Value::Array(tools) => tools,
        _ => Vec::new(),
    };
    for extra in EXTENDED_JSON {
        let mut extra: Value = serde_json::from_str(extra).expect("extended/*.json is valid");
        if let Value::Array(more) = extra["tools"].take() {
            tools.extend(more);
        }
    }
    tools
}

/// Tool definitions, parsed once: the `tools/list` result of the selected tools, and each
/// tool's input schema with the request limits added, by position in [`TOOLS`] (`None`
/// for a tool not selected: calls to it are refused as calls to an unknown tool).
pub struct Catalog {
    list_result: String,
    input_schemas: Vec<Option<Value>>,
}

/// Every tool: a host chooses a profile ([`crate::mcp::Server::set_tools`]); the engine
/// on its own answers them all.
impl Default for Catalog {
    fn default() -> Self {
        Catalog::new(&Selection::new("all", "").expect("profile all exists"))
    }
}

impl Catalog {
    /// The catalog of the tools `selection` lists. The reference's profile lists the nine
    /// exactly as the reference does; calls still take the optional arguments this server
    /// adds (a caller asking for more gets more).
    pub fn new(selection: &Selection) -> Catalog {
        let tools = definitions();
        let input_schemas = tools
            .iter()
            .zip(&selection.listed)
            .map(|(t, &on)| {
                on.then(|| {
                    let mut schema = t["inputSchema"].clone();
                    limits::constrain(&mut schema, None);
                    schema
                })
            })
            .collect();
        let listed: Vec<Value> = if selection.is_reference() {
            let mut reference: Value =
                serde_json::from_str(CATALOG_JSON).expect("catalog.json is valid");
            match reference["tools"].take() {
                Value::Array(nine) => nine,
                _ => Vec::new(),
            }
        } else {
            let mut either: Value =
                serde_json::from_str(EITHER_JSON).expect("extended/either.json is valid");
            let mut listed: Vec<Value> = Vec::new();
            for ((t, def), &on) in TOOLS.iter().zip(tools).zip(&selection.listed) {
                if !on || listed.iter().any(|l| l["name"] == t.name) {
                    continue;
                }
                let both = TOOLS
                    .iter()
                    .zip(&selection.listed)
                    .filter(|(o, on)| **on && o.name == t.name)
                    .count()
                    > 1;
                let joint = either["tools"]
                    .as_array_mut()
                    .and_then(|defs| defs.iter_mut().find(|d| d["name"] == t.name));
                match joint {
                    Some(joint) if both => listed.push(joint.take()),
                    _ => listed.push(def),
                }
            }
            listed
        };
        Catalog {
            list_result: format!(r#"{{"tools":{}}}"#, json::compact(&listed)),
            input_schemas,
        }
    }
}

impl Catalog {
    /// The `tools/list` result JSON.
    pub fn list_result(&self) -> &str {
        &self.list_result
    }

    /// Whether calling the tool `name` may change the memory (an unknown tool does not).
    pub fn mutates(&self, name: &str) -> bool {
        self.selected(name).any(|(tool, _)| tool.run.mutates())
    }

    /// The selected tools called `name` (two where both its shapes are) and their input
    /// schemas (limits included).
    fn selected<'s>(
        &'s self,
        name: &'s str,
    ) -> impl Iterator<Item = (&'static ToolDef, &'s Value)> {
        TOOLS
            .iter()
            .zip(&self.input_schemas)
            .filter(move |(t, _)| t.name == name)
            .filter_map(|(t, schema)| Some((t, schema.as_ref()?)))
    }

    /// The selected tool called `name` that `arguments` fit best (the first with the fewest
    /// issues against its schema and keys it does not declare), and those issues.
    fn fitting(&self, name: &str, arguments: &Value) -> Option<(&'static ToolDef, Vec<Issue>)> {
        let mut best: Option<(&'static ToolDef, Vec<Issue>, usize)> = None;
        for (tool, schema) in self.selected(name) {
            let mut issues = Vec::new();
            validate::check(schema, Some(arguments), &mut Vec::new(), &mut issues);
            let misfit = issues.len() + undeclared(schema, arguments);
            if best.as_ref().is_none_or(|(_, _, b)| misfit < *b) {
                best = Some((tool, issues, misfit));
            }
        }
        best.map(|(tool, issues, _)| (tool, issues))
    }
}

/// How many keys of `value`'s objects, at any depth, `schema` does not declare.
fn undeclared(schema: &Value, value: &Value) -> usize {
    match value {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| match schema["properties"].get(k) {
                Some(s) => undeclared(s, v),
                None => 1,
            })
            .sum(),
        Value::Array(items) => items.iter().map(|v| undeclared(&schema["items"], v)).sum(),
        _ => 0,
    }
}

/// What a tool call amounts to.
pub enum Outcome {
    /// A finished result: a read, or a failure (`isError`).
    Done(String),
    /// A read's answer of entities and relations, to write.
    Answer(Answer),
    /// A change to log and apply before replying.
    Change(Plan),
    /// Rewriting the log as the graph (the `compact` tool).
    Compact,
    /// A change, then compaction at once; the names whose bytes must leave the log.
    Forget(Plan, Vec<String>),
    /// The changes the log holds that match the query: answer with [`history::history`].
    History(history::Query),
    /// Undo this change.
    Undo(crate::memory::history::ChangeId),
    /// The same read, on the graph as it was at this time: answer with [`run_past`].
    AsOf(crate::model::Millis),
    /// Import the file the user named by this path, read through the log: plan it with
    /// [`py_migrate::plan`].
    Migrate(String),
}

/// Reads a tool's arguments (already checked against its schema) into `T`.
pub(crate) fn parse<'a, T: serde::Deserialize<'a>>(args: &'a Value) -> Result<T, String> {
    T::deserialize(args).map_err(|e| e.to_string())
}

/// Validates the arguments against the tool's input schema and runs the tool.
pub fn run(catalog: &Catalog, ctx: Ctx<'_>, name: &str, arguments: &Value) -> Outcome {
    run_on(catalog, ctx, name, arguments, false)
}

/// Runs a read asked `asOf` a time ([`Outcome::AsOf`]) on `ctx`, the graph as it was then.
pub fn run_past(catalog: &Catalog, ctx: Ctx<'_>, name: &str, arguments: &Value) -> String {
    match run_on(catalog, ctx, name, arguments, true) {
        Outcome::Done(result) => result,
        Outcome::Answer(answer) => answer.into_text(ctx.graph),
        _ => output::failure("asOf: only reads can look at the past"),
    }
}

fn run_on(catalog: &Catalog, ctx: Ctx<'_>, name: &str, arguments: &Value, past: bool) -> Outcome {
    let failure = |message: &str| Outcome::Done(output::failure(message));
    let Some((tool, issues)) = catalog.fitting(name, arguments) else {
        return failure(&format!("MCP error -32602: Tool {name} not found"));
    };
    if let Some(message) = refusal(name, &issues) {
        return failure(&message);
    }
    let outcome = match tool.run {
        Run::Read(f) => read_at(arguments, past, || f(ctx, arguments).map(Outcome::Done)),
        Run::Graph(f) => read_at(arguments, past, || f(ctx, arguments).map(Outcome::Answer)),
        Run::Write(f) => f(ctx, arguments).map(Outcome::Change),
        Run::Compact => Ok(Outcome::Compact),
        Run::Forget(f) => f(ctx, arguments).map(|(plan, names)| Outcome::Forget(plan, names)),
        Run::History => history::query(arguments).map(Outcome::History),
        Run::Undo => history::change_id(arguments).map(Outcome::Undo),
        Run::Migrate => py_migrate::source_path(arguments).map(Outcome::Migrate),
    };
    outcome.unwrap_or_else(|e| failure(&e))
}

/// A read's outcome: [`Outcome::AsOf`] when it asks about the past (and is not already
/// answering on the past's graph), else what `read` makes.
fn read_at(
    arguments: &Value,
    past: bool,
    read: impl FnOnce() -> Result<Outcome, String>,
) -> Result<Outcome, String> {
    match history::time_arg(arguments, "asOf")? {
        Some(at) if !past => Ok(Outcome::AsOf(at)),
        _ => read(),
    }
}

/// The failure text for a call with these issues, or `None` when it has none. Type issues
/// are reported all together in the reference's words; otherwise the first request limit
/// exceeded, else the first constraint broken.
fn refusal(name: &str, issues: &[Issue]) -> Option<String> {
    let types: Vec<String> = issues
        .iter()
        .filter(|i| i.is_type())
        .map(Issue::message_at)
        .collect();
    if !types.is_empty() {
        return Some(format!(
            "MCP error -32602: Input validation error: Invalid arguments for tool {name}: {}",
            types.join("\n")
        ));
    }
    let is_limit =
        |i: &&Issue| matches!(i.problem, Problem::TooLong { .. } | Problem::TooMany { .. });
    if let Some(limit) = issues.iter().find(is_limit) {
        return Some(format!(
            "Request limit exceeded in {name}: {}",
            limits::describe(limit)
        ));
    }
    issues.first().map(Issue::message_at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tool_table_and_the_catalog_list_the_same_tools_in_the_same_order() {
        let listed: Vec<String> = definitions()
            .iter()
            .map(|t| t["name"].as_str().unwrap_or_default().to_string())
            .collect();
        let table: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
        assert_eq!(listed, table);
    }
}
