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
                match joint {
                    Some(joint) if both => listed.push(joint.take()),
                    _ => listed.push(def.clone()),
                }
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
}
