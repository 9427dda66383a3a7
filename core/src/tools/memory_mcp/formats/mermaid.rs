//! Mermaid: a flowchart node per entity (its id the name with every character but ASCII
//! letters, digits and `_` made `_`, numbered on a clash), an arrow per relation between
//! exported entities; as the seed writes it, its labels coded as every Mermaid export codes
//! them (the seed codes only `"`).

use alloc::format;
use alloc::string::String;

use super::Doc;
use crate::capabilities::diagram::mermaid_label;
use crate::hash::{HashMap, HashSet};

/// The seed's node id of a name: one `_` per UTF-16 unit of any other character.
fn sanitized(name: &str) -> String {
    let mut id = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            id.push(c);
        } else {
            (0..c.len_utf16()).for_each(|_| id.push('_'));
        }
    }
    id
}

/// The graph as the seed's mermaid export.
pub(crate) fn write(doc: &Doc<'_>) -> String {
    let mut ids: HashMap<&str, String> = HashMap::default();
    let mut used: HashSet<String> = HashSet::default();
    for e in &doc.entities {
        let mut id = sanitized(e.entity.name);
        if used.contains(&id) {
            let mut n = 2;
            while used.contains(&format!("{id}_{n}")) {
                n += 1;
            }
            id = format!("{id}_{n}");
        }
        used.insert(id.clone());
        ids.insert(e.entity.name, id);
    }
    let mut out = String::from("graph LR\n  %% Knowledge Graph\n\n");
    for e in &doc.entities {
        out.push_str(&format!("  {}[\"", ids[e.entity.name]));
        mermaid_label(&mut out, e.entity.name);
        out.push_str("<br/>Type: ");
        mermaid_label(&mut out, e.entity.entity_type);
        if !e.tags.is_empty() {
            out.push_str("<br/>Tags: ");
            mermaid_label(&mut out, &e.tags.join(", "));
        }
        out.push_str("\"]\n");
    }
    for r in &doc.relations {
        let r = &r.relation;
        if let (Some(from), Some(to)) = (ids.get(r.from), ids.get(r.to)) {
            out.push_str(&format!("\n  {from} -->|\""));
            mermaid_label(&mut out, r.relation_type);
            out.push_str(&format!("\"| {to}"));
        }
    }
    out
}
