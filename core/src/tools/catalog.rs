//! The catalog of the tools a memory lists and answers: their definitions (`tools/list`), and
//! each one's input schema with the request limits added, built once for a [`Selection`].
//!
//! Each surface keeps its tools' definitions beside their code (`{"tools": [...]}` files),
//! found by name; a name whose two shapes are both selected is listed once, with its joint
//! definition from `either.json`.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde_json::Value;

use super::profile::Selection;
use super::validate::{self, Issue};
use super::{Dialect, SURFACES, Tool, limits};
use crate::json;

/// The definitions listed for a name whose two shapes a memory both answers:
/// `{"tools": [...]}`.
const EITHER_JSON: &str = include_str!("either.json");

/// The tool definitions of some `{"tools": [...]}` files, in order.
pub fn parse_definitions(files: &[&str]) -> Vec<Value> {
    let mut tools = Vec::new();
    for file in files {
        let mut parsed: Value = serde_json::from_str(file).expect("tool definitions are JSON");
        if let Value::Array(more) = parsed["tools"].take() {
            tools.extend(more);
        }
    }
    tools
}

/// The definition of `tool` among the surfaces' definitions.
fn definition_of(tool: Tool, definitions: &[(Dialect, Vec<Value>)]) -> Value {
    let found = definitions
        .iter()
        .filter(|(dialect, _)| *dialect == tool.dialect)
        .flat_map(|(_, defs)| defs)
        .find(|d| d["name"] == tool.def.name);
    match found {
        Some(def) => def.clone(),
        // Held by the test `each_surface_defines_exactly_its_tools`.
        None => panic!("{}: no definition beside its code", tool.def.name),
    }
}

/// Tool definitions, parsed once: the `tools/list` result of the selected tools, and each
/// selected tool's input schema with the request limits added. A tool not selected is
/// answered as an unknown tool.
pub struct Catalog {
    list_result: String,
    selected: Vec<(Tool, Value)>,
}

impl Catalog {
    /// The catalog of the tools `selection` lists. The reference's profile lists the nine
    /// exactly as the reference does; calls still take the optional arguments this server
    /// adds (a caller asking for more gets more).
    pub fn new(selection: &Selection) -> Catalog {
        let definitions: Vec<(Dialect, Vec<Value>)> = SURFACES
            .iter()
            .map(|s| (s.dialect, (s.definitions)()))
            .collect();
        let defined: Vec<(Tool, Value)> = selection
            .tools()
            .iter()
            .map(|&tool| (tool, definition_of(tool, &definitions)))
            .collect();
        let selected = defined
            .iter()
            .map(|(tool, def)| {
                let mut schema = def["inputSchema"].clone();
                limits::constrain(&mut schema, None);
                (*tool, schema)
            })
            .collect();
        let listed: Vec<Value> = if selection.is_reference() {
            super::reference::listed()
        } else {
            let mut either: Value =
                serde_json::from_str(EITHER_JSON).expect("either.json is valid");
            let mut listed: Vec<Value> = Vec::new();
            for (tool, def) in &defined {
                let name = tool.def.name;
                if listed.iter().any(|l| l["name"] == name) {
                    continue;
                }
                let both = defined.iter().filter(|(t, _)| t.def.name == name).count() > 1;
                let joint = either["tools"]
                    .as_array_mut()
                    .and_then(|defs| defs.iter_mut().find(|d| d["name"] == name));
                let def = match joint {
                    Some(joint) if both => joint.take(),
                    _ => def.clone(),
                };
                listed.push(listing(def, selection.lists_as_seed()));
            }
            listed
        };
        Catalog {
            list_result: format!(r#"{{"tools":{}}}"#, json::compact(&listed)),
            selected,
        }
    }

    /// The `tools/list` result JSON.
    pub fn list_result(&self) -> &str {
        &self.list_result
    }

    /// Whether calling the tool `name` may change the memory (an unknown tool does not).
    pub fn mutates(&self, name: &str) -> bool {
        self.selected(name).any(|(tool, _)| tool.def.run.mutates())
    }

    /// The selected tools called `name` (two where both its shapes are) and their input
    /// schemas (limits included).
    fn selected<'s>(&'s self, name: &'s str) -> impl Iterator<Item = (Tool, &'s Value)> {
        self.selected
            .iter()
            .filter(move |(t, _)| t.def.name == name)
            .map(|(t, schema)| (*t, schema))
    }

    /// The selected tool called `name` that `arguments` fit best (the first with the fewest
    /// issues against its schema and keys it does not declare), and those issues.
    pub fn fitting(&self, name: &str, arguments: &Value) -> Option<(Tool, Vec<Issue>)> {
        let mut best: Option<(Tool, Vec<Issue>, usize)> = None;
        for (tool, schema) in self.selected(name) {
            let mut issues = Vec::new();
            validate::check(schema, Some(arguments), &mut Vec::new(), &mut issues);
            // The Python seed refuses an argument its tool does not take (FastMCP's
            // validation); the others pass it by.
            if tool.dialect == Dialect::McpMemoryPy
                && let (Some(given), Some(props)) =
                    (arguments.as_object(), schema["properties"].as_object())
            {
                let unexpected = given.keys().filter(|k| !props.contains_key(*k));
                issues.extend(unexpected.map(|k| Issue {
                    path: alloc::vec![validate::Seg::Key(k.clone())],
                    problem: validate::Problem::Unexpected,
                }));
            }
            let misfit = issues.len() + undeclared(schema, arguments);
            if best.as_ref().is_none_or(|(_, _, b)| misfit < *b) {
                best = Some((tool, issues, misfit));
            }
        }
        best.map(|(tool, issues, _)| (tool, issues))
    }
}

/// Every tool: a host chooses a profile ([`crate::mcp::Server::set_tools`]); the engine
/// on its own answers them all.
impl Default for Catalog {
    fn default() -> Self {
        Catalog::new(&Selection::new("all", "").expect("profile all exists"))
    }
}

/// Marks a property a tool takes but does not list (`"x-unlisted": true`): what a caller
/// may ask for beyond what most need, kept out of every agent's context.
const UNLISTED: &str = "x-unlisted";

/// Definition `def` as `tools/list` shows it, for an agent that pays for every byte in
/// its context: without its unlisted properties, the output schema's descriptions (the
/// input's tell what the tool does), `execution` (its one value here, `forbidden`, is
/// what its absence means) and `$schema` (the schemas use only keywords that mean the same
/// in draft-07 and in 2020-12, MCP's default: `same_in_both_drafts`); and as a seed's
/// server lists its tools when `as_seed`: name, description and input schema.
fn listing(mut def: Value, as_seed: bool) -> Value {
    drop_unlisted(&mut def["inputSchema"]);
    let Some(fields) = def.as_object_mut() else {
        return def;
    };
    if let Some(output) = fields.get_mut("outputSchema") {
        drop_descriptions(output);
    }
    for schema in ["inputSchema", "outputSchema"] {
        if let Some(schema) = fields.get_mut(schema).and_then(Value::as_object_mut) {
            schema.remove("$schema");
        }
    }
    fields.remove("execution");
    if as_seed {
        fields.retain(|k, _| matches!(k.as_str(), "name" | "description" | "inputSchema"));
    }
    def
}

/// Removes every `description` from `schema`, at any depth.
fn drop_descriptions(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            map.retain(|k, v| !(k == "description" && v.is_string()));
            map.values_mut().for_each(drop_descriptions);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_descriptions),
        _ => {}
    }
}

/// Removes the properties marked [`UNLISTED`] from `schema`, at any depth.
fn drop_unlisted(schema: &mut Value) {
    if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        props.retain(|_, p| p.get(UNLISTED).is_none());
        props.values_mut().for_each(drop_unlisted);
    }
    if let Some(items) = schema.get_mut("items") {
        drop_unlisted(items);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row of every surface has a definition beside its code, and every definition
    /// there has its row: none is listed without code, none answered without a definition.
    #[test]
    fn each_surface_defines_exactly_its_tools() {
        for surface in SURFACES {
            let mut defined: Vec<String> = (surface.definitions)()
                .iter()
                .map(|d| String::from(d["name"].as_str().unwrap_or_default()))
                .collect();
            let mut rows: Vec<String> = surface.tools.iter().map(|t| t.name.into()).collect();
            defined.sort();
            rows.sort();
            assert_eq!(defined, rows, "{:?}", surface.dialect);
        }
        assert!(SURFACES.iter().any(|s| s.dialect == Dialect::Reference));
    }

    /// Listings leave `$schema` out, so every schema must mean the same in draft-07 (what
    /// the definitions were written in) and in 2020-12 (what MCP assumes without one): no
    /// keyword whose meaning changed between them.
    #[test]
    fn same_in_both_drafts() {
        fn walk(schema: &Value, at: &str) {
            match schema {
                Value::Object(map) => {
                    for changed in ["$ref", "definitions", "dependencies", "additionalItems"] {
                        assert!(!map.contains_key(changed), "{at}: {changed}");
                    }
                    assert!(
                        !map.get("items").is_some_and(Value::is_array),
                        "{at}: items as a list"
                    );
                    for k in ["exclusiveMinimum", "exclusiveMaximum"] {
                        assert!(!map.get(k).is_some_and(Value::is_boolean), "{at}: {k}");
                    }
                    map.iter().for_each(|(k, v)| walk(v, &format!("{at}/{k}")));
                }
                Value::Array(items) => items.iter().for_each(|v| walk(v, at)),
                _ => {}
            }
        }
        for surface in SURFACES {
            for def in (surface.definitions)() {
                walk(&def, def["name"].as_str().unwrap_or_default());
            }
        }
        let either: Value = serde_json::from_str(EITHER_JSON).expect("either.json");
        walk(&either, "either.json");
    }
}
