//! Graphviz DOT: a box per entity labelled with its name, type and tags, an arrow per
//! relation labelled with its type — as the seed writes it, whose label lines are joined by
//! the two characters `\n` before escaping (so the file holds `\\n`); quoted as every DOT
//! export is (control characters too, which the seed writes raw).

use alloc::format;
use alloc::string::String;

use super::Doc;
use crate::capabilities::diagram::dot_string;

/// `s` as a quoted DOT string ([`dot_string`]).
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    dot_string(&mut out, s);
    out
}

/// The graph as the seed's dot export.
pub(crate) fn write(doc: &Doc<'_>) -> String {
    let mut out = String::from(
        "digraph KnowledgeGraph {\n  rankdir=LR;\n  node [shape=box, style=rounded];\n\n",
    );
    for e in &doc.entities {
        let mut label = format!("{}\\nType: {}", e.entity.name, e.entity.entity_type);
        if !e.tags.is_empty() {
            label.push_str(&format!("\\nTags: {}", e.tags.join(", ")));
        }
        out.push_str(&format!(
            "  {} [label={}];\n",
            quoted(e.entity.name),
            quoted(&label)
        ));
    }
    out.push('\n');
    for r in &doc.relations {
        out.push_str(&format!(
            "  {} -> {} [label={}];\n",
            quoted(r.relation.from),
            quoted(r.relation.to),
            quoted(r.relation.relation_type)
        ));
    }
    out.push('}');
    out
}
