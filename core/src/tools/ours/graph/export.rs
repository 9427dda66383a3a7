//! export_graph: the graph (or one entity type's part of it) as JSON, Mermaid or Graphviz DOT
//! text that parses whatever the names hold.
//!
//! - JSON: `JSON.stringify({entities, relations}, null, 2)`, the read_graph text.
//! - Mermaid: `graph LR`, one node per name with an id `n0`, `n1`, … (never derived from the
//!   name) and a quoted label, one `-->|"type"|` edge per relation. Inside a label everything
//!   but letters, digits, inner spaces and a few harmless marks is written as a Mermaid entity
//!   code `#<decimal>;` (so no `"`, `#`, `;`, `:`, `%`, brackets, pipes, `<`, `>`, backticks
//!   or line breaks appear raw); non-ASCII text stays as is unless it is a control or space
//!   character. Mermaid rejects an empty label, so the empty name is labelled `" "`.
//! - DOT: `digraph memory`, node IDs are the names as quoted strings (`"` and `\` escaped,
//!   line breaks written `\n`, other control characters as `&#<decimal>;`), entity nodes carry
//!   an `entityType` attribute and relations a `label`.
//!
//! Nodes are the names of the exported entities (one per name, in entity order), then the
//! relation endpoints that name no exported entity (dangling ones), in relation order.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ok;
use crate::capabilities::diagram::{dot_string, mermaid_label};
use crate::graph::{EntityId, Graph, RelationId};
use crate::hash::{HashMap, HashSet};
use crate::intern::Sym;
use crate::json;
use crate::model::{Entity, Relation};
use crate::tools::Ctx;
use crate::tools::parse;

/// The formats export_graph writes (its schema's `enum`).
#[derive(Serialize, Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Format {
    Json,
    Mermaid,
    Dot,
}

#[derive(Deserialize)]
struct Selection<'a> {
    format: Format,
    #[serde(rename = "entityType")]
    entity_type: Option<&'a str>,
}

#[derive(Serialize)]
struct Export {
    format: Format,
    output: String,
}

/// export_graph: the selected entities and relations as text in the asked format.
pub fn export_graph(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let graph = t.graph;
    let Selection {
        format,
        entity_type,
    } = parse(a)?;
    let (entities, relations) = selection(graph, entity_type);
    let output = match format {
        Format::Json => json(graph, &entities, &relations),
        Format::Mermaid => mermaid(graph, &entities, &relations),
        Format::Dot => dot(graph, &entities, &relations),
    };
    ok(&Export { format, output })
}

/// Everything, or the entities of one type and the relations between their names.
fn selection(graph: &Graph, entity_type: Option<&str>) -> (Vec<EntityId>, Vec<RelationId>) {
    let Some(kind) = entity_type else {
        return (
            graph.entities().map(|(id, _)| id).collect(),
            graph.relations().map(|(id, _)| id).collect(),
        );
    };
    let Some(kind) = graph.strings().lookup(kind) else {
        return (Vec::new(), Vec::new());
    };
    let entities: Vec<EntityId> = graph
        .entities()
        .filter(|(_, e)| e.entity_type == kind)
        .map(|(id, _)| id)
        .collect();
    let names: HashSet<Sym> = entities.iter().map(|&id| graph.entity(id).name).collect();
    let relations = graph
        .relations_touching(names.iter().copied())
        .into_iter()
        .filter(|&id| {
            let r = graph.relation(id);
            names.contains(&r.from) && names.contains(&r.to)
        })
        .collect();
    (entities, relations)
}

#[derive(Serialize)]
struct GraphJson<'a> {
    entities: Vec<Entity<'a>>,
    relations: Vec<Relation<'a>>,
}

fn json(graph: &Graph, entities: &[EntityId], relations: &[RelationId]) -> String {
    json::pretty(&GraphJson {
        entities: entities
            .iter()
            .map(|&id| graph.entity_text(graph.entity(id)))
            .collect(),
        relations: relations
            .iter()
            .map(|&id| graph.relation_text(graph.relation(id)))
            .collect(),
    })
}

/// The nodes to draw: each name once (with the type of its first exported entity, or `None`
/// for a name only relations use), and each name's position.
struct Nodes {
    list: Vec<(Sym, Option<Sym>)>,
    index: HashMap<Sym, usize>,
}

impl Nodes {
    fn of(graph: &Graph, entities: &[EntityId], relations: &[RelationId]) -> Self {
        let mut nodes = Nodes {
            list: Vec::new(),
            index: HashMap::default(),
        };
        for &id in entities {
            let e = graph.entity(id);
            nodes.add(e.name, Some(e.entity_type));
        }
        for &id in relations {
            let r = graph.relation(id);
            nodes.add(r.from, None);
            nodes.add(r.to, None);
        }
        nodes
    }

    fn add(&mut self, name: Sym, kind: Option<Sym>) {
        let next = self.list.len();
        self.index.entry(name).or_insert_with(|| {
            self.list.push((name, kind));
            next
        });
    }
}

fn mermaid(graph: &Graph, entities: &[EntityId], relations: &[RelationId]) -> String {
    let nodes = Nodes::of(graph, entities, relations);
    let mut out = String::with_capacity(32 + 40 * (nodes.list.len() + relations.len()));
    out.push_str("graph LR\n");
    for (i, &(name, _)) in nodes.list.iter().enumerate() {
        let _ = write!(out, "    n{i}[\"");
        mermaid_label(&mut out, graph.text(name));
        out.push_str("\"]\n");
    }
    for &id in relations {
        let r = graph.relation(id);
        let _ = write!(out, "    n{} -->|\"", nodes.index[&r.from]);
        mermaid_label(&mut out, graph.text(r.relation_type));
        let _ = writeln!(out, "\"| n{}", nodes.index[&r.to]);
    }
    out
}

fn dot(graph: &Graph, entities: &[EntityId], relations: &[RelationId]) -> String {
    let nodes = Nodes::of(graph, entities, relations);
    let mut out = String::with_capacity(32 + 48 * (nodes.list.len() + relations.len()));
    out.push_str("digraph memory {\n");
    for &(name, kind) in &nodes.list {
        if let Some(kind) = kind {
            out.push_str("  ");
            dot_string(&mut out, graph.text(name));
            out.push_str(" [entityType=");
            dot_string(&mut out, graph.text(kind));
            out.push_str("];\n");
        }
    }
    for &id in relations {
        let r = graph.relation(id);
        out.push_str("  ");
        dot_string(&mut out, graph.text(r.from));
        out.push_str(" -> ");
        dot_string(&mut out, graph.text(r.to));
        out.push_str(" [label=");
        dot_string(&mut out, graph.text(r.relation_type));
        out.push_str("];\n");
    }
    out.push_str("}\n");
    out
}
