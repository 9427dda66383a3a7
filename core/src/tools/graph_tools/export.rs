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
use crate::graph::{EntityId, Graph, RelationId};
use crate::hash::{HashMap, HashSet};
use crate::intern::Sym;
use crate::json;
use crate::model::{Entity, Relation};
use crate::tools::{Ctx, parse};

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

/// Characters a Mermaid label keeps as they are (besides letters and digits).
fn mermaid_plain(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            ' ' | '_' | '-' | '.' | ',' | '/' | '\'' | '!' | '?' | '@' | '+' | '=' | '~'
        )
        || (!c.is_ascii() && !c.is_control() && !c.is_whitespace())
}

/// Writes `text` as the inside of a quoted Mermaid label (see the module doc).
pub(super) fn mermaid_label(out: &mut String, text: &str) {
    if text.is_empty() {
        out.push(' ');
        return;
    }
    for (i, c) in text.char_indices() {
        // Leading and trailing spaces are coded too, or Mermaid would trim them.
        let at_edge = i == 0 || i + c.len_utf8() == text.len();
        if mermaid_plain(c) && !(c == ' ' && at_edge) {
            out.push(c);
        } else {
            let _ = write!(out, "#{};", u32::from(c));
        }
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

/// Writes `text` as a DOT quoted string, quotes included (see the module doc).
pub(super) fn dot_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {
                let _ = write!(out, "&#{};", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
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

#[cfg(test)]
mod tests {
    use super::*;

    fn label(text: &str) -> String {
        let mut out = String::new();
        mermaid_label(&mut out, text);
        out
    }

    fn quoted(text: &str) -> String {
        let mut out = String::new();
        dot_string(&mut out, text);
        out
    }

    #[test]
    fn mermaid_label_codes_every_character_that_could_end_or_bend_the_label() {
        assert_eq!(label("Alice Smith"), "Alice Smith");
        assert_eq!(label("a\"b"), "a#34;b");
        assert_eq!(label("#1;"), "#35;1#59;");
        assert_eq!(label("x]|y-->z"), "x#93;#124;y--#62;z");
        assert_eq!(label("line\nbreak\r"), "line#10;break#13;");
        assert_eq!(label(" pad "), "#32;pad#32;");
        assert_eq!(label(""), " ");
        assert_eq!(label("é😀\u{2028}"), "é😀#8232;");
        assert_eq!(
            label("style:x;%%{init}%%`"),
            "style#58;x#59;#37;#37;#123;init#125;#37;#37;#96;"
        );
    }

    #[test]
    fn dot_string_escapes_quotes_backslashes_and_line_breaks() {
        assert_eq!(quoted("plain"), "\"plain\"");
        assert_eq!(quoted(""), "\"\"");
        assert_eq!(quoted("a\"b"), r#""a\"b""#);
        assert_eq!(quoted("end\\"), r#""end\\""#);
        assert_eq!(quoted("two\nlines"), r#""two\nlines""#);
        assert_eq!(quoted("tab\there\u{0}"), "\"tab&#9;here&#0;\"");
        assert_eq!(quoted("é😀 -> {}"), "\"é😀 -> {}\"");
    }
}
