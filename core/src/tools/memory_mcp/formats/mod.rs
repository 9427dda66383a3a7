//! The TypeScript seed's ("Memory MCP") import and export formats: writers for json, csv,
//! graphml, gexf, dot, markdown and mermaid, as its `export_graph` writes them (its
//! templates, `\n` between lines, its escaping), and readers for json, csv and graphml, as
//! its `import_graph` reads them — with a real CSV reader and XML parser, and errors naming
//! the line or element where it guesses or drops things.
//!
//! Writers take the graph in the seed's shapes ([`Doc`]); readers give entities and
//! relations in the shapes the seed's file has ([`EntityLine`], [`RelationLine`]), each
//! checked by the seed's rules ([`entity`], [`relation`]): an item breaking one is not read
//! but reported ([`Read::errors`]); a document that is not of its format is refused whole.

pub mod csv;
pub mod dot;
pub mod gexf;
pub mod graphml;
pub mod json;
pub mod markdown;
pub mod mermaid;

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::Display;

use super::{EntityJson, RelationJson};
use crate::graph::{EntityId, Graph, RelationId};
use crate::jsonl::{EntityLine, EntityMeta, RelationLine};
use crate::model::Millis;
use crate::time;
use crate::tools::limits::{MAX_NAME_BYTES, MAX_OBSERVATION_BYTES};

/// The formats `export_graph` writes, in its schema's order.
pub const WRITTEN: [&str; 7] = [
    "json", "csv", "graphml", "gexf", "dot", "markdown", "mermaid",
];

/// The formats `import_graph` reads.
pub const READ: [&str; 3] = ["json", "csv", "graphml"];

/// A graph to write, in the seed's shapes.
#[derive(serde::Serialize)]
pub(crate) struct Doc<'a> {
    /// Its entities, in order.
    pub entities: Vec<EntityJson<'a>>,
    /// Its relations, in order.
    pub relations: Vec<RelationJson<'a>>,
}

impl<'a> Doc<'a> {
    /// These entities and relations of `g`, in this order.
    pub(crate) fn of(g: &'a Graph, entities: &[EntityId], relations: &[RelationId]) -> Self {
        Doc {
            entities: entities
                .iter()
                .map(|&id| EntityJson::of(g, g.entity(id), false))
                .collect(),
            relations: relations
                .iter()
                .map(|&id| RelationJson::of(g, g.relation(id), false))
                .collect(),
        }
    }
}

/// `doc` written in `format` (one of [`WRITTEN`]); `now` is the time markdown says it was
/// exported. `None` for a format not written.
pub(crate) fn write(format: &str, doc: &Doc<'_>, now: Millis) -> Option<String> {
    Some(match format {
        "json" => json::write(doc),
        "csv" => csv::write(doc),
        "graphml" => graphml::write(doc),
        "gexf" => gexf::write(doc),
        "dot" => dot::write(doc),
        "markdown" => markdown::write(doc, now),
        "mermaid" => mermaid::write(doc),
        _ => return None,
    })
}

/// What a reader made of a document: the items that keep the seed's rules, in order, and a
/// sentence for each one that does not.
#[derive(Debug, Default)]
pub struct Read {
    /// The entities read.
    pub entities: Vec<EntityLine>,
    /// The relations read (`created`: the time given, else 0).
    pub relations: Vec<RelationLine>,
    /// Items not read, each with where it is and the rule it breaks.
    pub errors: Vec<String>,
}

impl Read {
    /// Keeps the entity of these fields, or notes why not (`at` says where it is: asked
    /// only then, since finding a line can take a scan).
    fn entity<D: Display>(&mut self, at: impl FnOnce() -> D, fields: Fields) {
        match entity(fields) {
            Ok(e) => self.entities.push(e),
            Err(why) => self.error(at, why),
        }
    }

    /// Keeps the relation of these fields, or notes why not.
    fn relation<D: Display>(&mut self, at: impl FnOnce() -> D, fields: RelationFields<'_>) {
        match relation(fields) {
            Ok(r) => self.relations.push(r),
            Err(why) => self.error(at, why),
        }
    }

    /// Notes that the item `at` names is not read, and why.
    fn error<D: Display>(&mut self, at: impl FnOnce() -> D, why: String) {
        self.errors.push(format!("{}: {why}", at()));
    }
}

/// `data` read as `format` (one of [`READ`]), or why it is not a document of that format.
pub fn read(format: &str, data: &str) -> Result<Read, String> {
    match format {
        "json" => json::read(data),
        "csv" => csv::read(data),
        "graphml" => graphml::read(data),
        _ => Err(format!("format: {format:?} cannot be imported")),
    }
}

/// An entity's fields as a document gives them, before the seed's rules.
#[derive(Debug, Default)]
pub(crate) struct Fields {
    pub name: String,
    pub entity_type: String,
    pub observations: Vec<String>,
    pub created: Option<String>,
    pub updated: Option<String>,
    pub tags: Vec<String>,
    pub importance: Option<f64>,
    pub parent: Option<String>,
}

/// A relation's fields as a document gives them.
pub(crate) struct RelationFields<'a> {
    pub from: &'a str,
    pub to: &'a str,
    pub relation_type: &'a str,
    pub created: Option<&'a str>,
    pub updated: Option<&'a str>,
}

/// Most characters in a name, as the seed has it.
const NAME_CHARS: usize = 500;
/// Most characters in a type or a tag.
const TYPE_CHARS: usize = 100;
/// Most characters in an observation.
const OBSERVATION_CHARS: usize = 5000;

/// `text` trimmed, if it has 1 to `max` characters (and fits a name's bytes).
fn trimmed<'t>(what: &str, text: &'t str, max: usize) -> Result<&'t str, String> {
    let t = text.trim();
    let chars = t.chars().count();
    if chars == 0 {
        return Err(format!("{what} is empty"));
    }
    if chars > max || t.len() > MAX_NAME_BYTES {
        return Err(format!(
            "{what} has {chars} characters ({} bytes), more than {max} (or {MAX_NAME_BYTES} bytes)",
            t.len()
        ));
    }
    Ok(t)
}

/// A time of the seed's (ISO 8601), if given and not blank.
fn time_of(what: &str, text: Option<&str>) -> Result<Millis, String> {
    match text.map(str::trim) {
        None | Some("") => Ok(0),
        Some(t) => time::parse(t).map_err(|e| format!("{what}: {e}")),
    }
}

/// Splits a `;`-separated list, trimming items and dropping empty ones.
pub(crate) fn split_list(text: &str) -> Vec<String> {
    text.split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(ToString::to_string)
        .collect()
}

/// An importance written as text (blank: none).
pub(crate) fn importance_text(text: &str) -> Result<Option<f64>, String> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    t.parse::<f64>()
        .map(Some)
        .map_err(|_| format!("importance {t:?} is not a number"))
}

/// The entity of these fields by the seed's rules: name (trimmed, 1–500 characters), type
/// (trimmed, 1–100), observations (1–5000 characters each), times (ISO 8601), tags
/// (trimmed and lowercased, 1–100 characters, each once), importance (0–10), parent.
pub(crate) fn entity(f: Fields) -> Result<EntityLine, String> {
    let name = trimmed("name", &f.name, NAME_CHARS)?.to_string();
    let entity_type = trimmed("entityType", &f.entity_type, TYPE_CHARS)?.to_string();
    for (i, o) in f.observations.iter().enumerate() {
        let chars = o.chars().count();
        if chars == 0 || chars > OBSERVATION_CHARS || o.len() > MAX_OBSERVATION_BYTES {
            return Err(format!(
                "observation {} has {chars} characters, not 1 to {OBSERVATION_CHARS}",
                i + 1
            ));
        }
    }
    let mut tags: Vec<String> = Vec::new();
    for t in &f.tags {
        let t = trimmed("a tag", t, TYPE_CHARS)?.to_lowercase();
        if !tags.contains(&t) {
            tags.push(t);
        }
    }
    if let Some(x) = f.importance
        && !(0.0..=10.0).contains(&x)
    {
        return Err(format!("importance must be from 0 to 10, found {x}"));
    }
    let parent = match &f.parent {
        Some(p) => Some(trimmed("parentId", p, NAME_CHARS)?.to_string()),
        None => None,
    };
    let created = time_of("createdAt", f.created.as_deref())?;
    let updated = time_of("lastModified", f.updated.as_deref())?;
    let has_meta = created != 0
        || updated != 0
        || !tags.is_empty()
        || f.importance.is_some()
        || parent.is_some();
    Ok(EntityLine {
        name,
        entity_type,
        observations: f.observations,
        meta: has_meta.then_some(EntityMeta {
            created,
            updated,
            tags,
            importance: f.importance,
            parent,
        }),
    })
}

/// The relation of these fields by the seed's rules: ends as names, type trimmed (1–100
/// characters), times ISO 8601 (`lastModified` is checked, not kept: a relation here never
/// changes).
pub(crate) fn relation(f: RelationFields<'_>) -> Result<RelationLine, String> {
    let from = trimmed("from", f.from, NAME_CHARS)?.to_string();
    let to = trimmed("to", f.to, NAME_CHARS)?.to_string();
    let relation_type = trimmed("relationType", f.relation_type, TYPE_CHARS)?.to_string();
    time_of("lastModified", f.updated)?;
    Ok(RelationLine {
        from,
        to,
        relation_type,
        created: time_of("createdAt", f.created)?,
    })
}

/// `s` with the five XML characters escaped, as the seed's GraphML and GEXF do.
pub(crate) fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// A number as JavaScript's `String(n)` writes it (a whole number without a fraction).
pub(crate) fn js_number(x: f64) -> String {
    format!("{x}")
}
