//! Markdown: a heading per entity with its type, tags, importance and observations, then
//! the relations as a list; nothing escaped, as the seed writes it.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Doc, js_number};
use crate::model::Millis;
use crate::time;

/// The graph as the seed's markdown export, said to be exported at `now`.
pub(crate) fn write(doc: &Doc<'_>, now: Millis) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut line = |s: String| lines.push(s);
    line("# Knowledge Graph Export".into());
    line(String::new());
    line(format!("**Exported:** {}", time::iso(now)));
    line(format!("**Entities:** {}", doc.entities.len()));
    line(format!("**Relations:** {}", doc.relations.len()));
    line(String::new());
    line("## Entities".into());
    line(String::new());
    for e in &doc.entities {
        line(format!("### {}", e.entity.name));
        line(String::new());
        line(format!("- **Type:** {}", e.entity.entity_type));
        if !e.tags.is_empty() {
            let tags: Vec<String> = e.tags.iter().map(|t| format!("`{t}`")).collect();
            line(format!("- **Tags:** {}", tags.join(", ")));
        }
        if let Some(x) = e.importance {
            line(format!("- **Importance:** {}/10", js_number(x)));
        }
        if !e.entity.observations.is_empty() {
            line(String::new());
            line("**Observations:**".into());
            for o in &e.entity.observations {
                line(format!("- {o}"));
            }
        }
        line(String::new());
    }
    if !doc.relations.is_empty() {
        line("## Relations".into());
        line(String::new());
        for r in &doc.relations {
            let r = &r.relation;
            line(format!(
                "- **{}** \u{2192} *{}* \u{2192} **{}**",
                r.from, r.relation_type, r.to
            ));
        }
        line(String::new());
    }
    lines.join("\n")
}
