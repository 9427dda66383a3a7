//! The reference server's memory file (JSONL): reading it losslessly, writing it exactly —
//! and the TypeScript seed's ("Memory MCP"), the same lines with more fields (`createdAt`,
//! `lastModified`, `tags`, `importance`, `parentId`), which are kept when read and written
//! back by [`export_memory_mcp`].
//!
//! Reading follows the reference's reader (`tests/scenarios/import-reference-jsonl.json`): blank lines, CRLF, any key
//! order and spacing, extra keys, unknown line types and duplicate entities are all accepted,
//! and file order is kept. Where the reference would fail or silently rewrite, this reader
//! either reports a warning and keeps going (invalid UTF-8, lone surrogates, a BOM, lines
//! without data) or refuses the file naming the line (text that is not JSON, fields of the
//! wrong type), so nothing is lost without being said.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;
use serde_json::{Map, Value};

use crate::graph::{self, Graph};
use crate::hash::HashMap;
use crate::json::{compact, parse_lenient, type_name};
use crate::model::{self, Millis};
use crate::record::{Op, Record};
use crate::time;

/// An entity line. Owned, unlike [`model::Entity`]: the reader's strings come from a
/// repaired copy of the line, which does not outlive it.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityLine {
    /// The entity's name.
    pub name: String,
    /// The entity's type.
    pub entity_type: String,
    /// Its observations, in file order.
    pub observations: Vec<String>,
    /// The TypeScript seed's fields, if the line has any.
    pub meta: Option<EntityMeta>,
}

/// What the TypeScript seed keeps on an entity line beyond the reference.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EntityMeta {
    /// `createdAt` (0: none).
    pub created: Millis,
    /// `lastModified` (0: none).
    pub updated: Millis,
    /// `tags`, lowercased.
    pub tags: Vec<String>,
    /// `importance`.
    pub importance: Option<f64>,
    /// `parentId`: the parent entity's name.
    pub parent: Option<String>,
}

/// A relation line (owned, as [`EntityLine`] is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelationLine {
    /// Name where the relation starts.
    pub from: String,
    /// Name where the relation ends.
    pub to: String,
    /// The relation's type.
    pub relation_type: String,
    /// The TypeScript seed's `createdAt` (0: none).
    pub created: Millis,
}

/// The contents of a reference memory file.
#[derive(Debug, Default)]
pub struct Parsed {
    /// Entities in file order (duplicates kept; in the TypeScript seed's files, one per
    /// name: see [`Parsed::fold`]).
    pub entities: Vec<EntityLine>,
    /// Relations in file order (duplicates kept, but in the TypeScript seed's files).
    pub relations: Vec<RelationLine>,
    /// What was repaired or skipped, one sentence each.
    pub warnings: Vec<String>,
}

/// A line the importer refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)
    }
}

fn string_field(obj: &Map<String, Value>, key: &str, line: usize) -> Result<String, ImportError> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        other => Err(ImportError {
            line,
            reason: format!("`{key}` must be a string, found {}", type_name(other)),
        }),
    }
}

/// A time field of the TypeScript seed (ISO 8601), 0 if the line has none.
fn time_field(obj: &Map<String, Value>, key: &str, line: usize) -> Result<Millis, ImportError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(0),
        Some(Value::String(s)) => time::parse(s).map_err(|e| ImportError {
            line,
            reason: format!("`{key}`: {e}"),
        }),
        Some(other) => Err(ImportError {
            line,
            reason: format!(
                "`{key}` must be a time (a string), found {}",
                type_name(Some(other))
            ),
        }),
    }
}

/// The TypeScript seed's fields of an entity line, if it has any.
fn entity_meta(obj: &Map<String, Value>, line: usize) -> Result<Option<EntityMeta>, ImportError> {
    const KEYS: [&str; 5] = [
        "createdAt",
        "lastModified",
        "tags",
        "importance",
        "parentId",
    ];
    if !KEYS
        .iter()
        .any(|k| obj.get(*k).is_some_and(|v| !v.is_null()))
    {
        return Ok(None);
    }
    let refuse = |reason: String| ImportError { line, reason };
    let tags = match obj.get("tags") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => {
            let mut tags: Vec<String> = Vec::new();
            for t in items {
                let Value::String(t) = t else {
                    return Err(refuse(format!(
                        "tags must be strings, found {}",
                        type_name(Some(t))
                    )));
                };
                let lower = t.to_lowercase();
                if !lower.is_empty() && !tags.contains(&lower) {
                    tags.push(lower);
                }
            }
            tags
        }
        Some(other) => {
            return Err(refuse(format!(
                "`tags` must be an array, found {}",
                type_name(Some(other))
            )));
        }
    };
    let importance = match obj.get("importance") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_f64() {
            Some(x) if (0.0..=10.0).contains(&x) => Some(x),
            _ => {
                return Err(refuse(format!(
                    "`importance` must be from 0 to 10, found {n}"
                )));
            }
        },
        Some(other) => {
            return Err(refuse(format!(
                "`importance` must be a number, found {}",
                type_name(Some(other))
            )));
        }
    };
    let parent = match obj.get("parentId") {
        None | Some(Value::Null) => None,
        Some(_) => Some(string_field(obj, "parentId", line)?),
    };
    Ok(Some(EntityMeta {
        created: time_field(obj, "createdAt", line)?,
        updated: time_field(obj, "lastModified", line)?,
        tags,
        importance,
        parent,
    }))
}

/// What the reader makes of one line of a reference file.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    /// Nothing but whitespace.
    Blank,
    /// An entity line; `had_observations` is false if it has no `observations` key (read as
    /// none).
    Entity {
        /// The entity.
        entity: EntityLine,
        /// Whether the line has an `observations` key.
        had_observations: bool,
    },
    /// A relation line.
    Relation(RelationLine),
    /// JSON that is neither an entity nor a relation (skipped, as the reference does).
    Skipped,
}

/// One line of a reference file, read.
#[derive(Debug, Clone, PartialEq)]
pub struct LineRead {
    /// Whether it holds invalid UTF-8 (replaced by U+FFFD).
    pub invalid_utf8: bool,
    /// Whether it starts the file with a byte order mark (skipped).
    pub bom: bool,
    /// Lone UTF-16 surrogate escapes in it (replaced by U+FFFD).
    pub surrogates: usize,
    /// What it holds, or why the reader refuses it.
    pub content: Result<Line, ImportError>,
}

/// Every line of a reference file (split at `\n`), read: what [`parse`] reads, line by
/// line, without stopping at a line it refuses.
pub fn lines(bytes: &[u8]) -> impl Iterator<Item = LineRead> {
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, raw)| read_line(raw, i + 1))
}

/// Reads line number `line` (1-based), whose bytes are `raw`.
fn read_line(raw: &[u8], line: usize) -> LineRead {
    let text = String::from_utf8_lossy(raw);
    let invalid_utf8 = matches!(text, alloc::borrow::Cow::Owned(_));
    let mut trimmed: &str = &text;
    let mut bom = false;
    if line == 1
        && let Some(rest) = trimmed.strip_prefix('\u{feff}')
    {
        bom = true;
        trimmed = rest;
    }
    let (content, surrogates) = match line_content(trimmed, line) {
        Ok((content, n)) => (Ok(content), n),
        Err(e) => (Err(e), 0),
    };
    LineRead {
        invalid_utf8,
        bom,
        surrogates,
        content,
    }
}

/// What one line of text holds, and how many lone surrogate escapes it repaired.
fn line_content(raw: &str, line: usize) -> Result<(Line, usize), ImportError> {
    if raw
        .trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
        .is_empty()
    {
        return Ok((Line::Blank, 0));
    }
    let (value, surrogates) = parse_lenient::<Value>(raw).map_err(|e| ImportError {
        line,
        reason: format!("not JSON ({e})"),
    })?;
    let Value::Object(obj) = value else {
        return Ok((Line::Skipped, surrogates));
    };
    let content = match obj.get("type").and_then(Value::as_str) {
        Some("entity") => {
            let observations = match obj.get("observations") {
                None => None,
                Some(Value::Array(items)) => Some(
                    items
                        .iter()
                        .map(|o| match o {
                            Value::String(s) => Ok(s.clone()),
                            other => Err(ImportError {
                                line,
                                reason: format!(
                                    "observations must be strings, found {}",
                                    type_name(Some(other))
                                ),
                            }),
                        })
                        .collect::<Result<Vec<_>, _>>()?,
                ),
                Some(other) => {
                    return Err(ImportError {
                        line,
                        reason: format!(
                            "`observations` must be an array, found {}",
                            type_name(Some(other))
                        ),
                    });
                }
            };
            Line::Entity {
                had_observations: observations.is_some(),
                entity: EntityLine {
                    name: string_field(&obj, "name", line)?,
                    entity_type: string_field(&obj, "entityType", line)?,
                    observations: observations.unwrap_or_default(),
                    meta: entity_meta(&obj, line)?,
                },
            }
        }
        Some("relation") => Line::Relation(RelationLine {
            from: string_field(&obj, "from", line)?,
            to: string_field(&obj, "to", line)?,
            relation_type: string_field(&obj, "relationType", line)?,
            created: time_field(&obj, "createdAt", line)?,
        }),
        _ => Line::Skipped,
    };
    Ok((content, surrogates))
}

/// A reference file read past the lines the reader refuses.
#[derive(Debug, Default)]
pub struct Accepted {
    /// What the accepted lines hold, with the reader's warnings about them.
    pub parsed: Parsed,
    /// Lines that are not blank.
    pub lines: usize,
    /// Lines skipped as neither an entity nor a relation.
    pub skipped: usize,
    /// Numbers (1-based) of the lines refused.
    pub refused: Vec<usize>,
    /// Why the first refused line was refused.
    pub first_refused: Option<ImportError>,
}

/// Reads a reference JSONL memory file, refusing it at the first line [`lines`] refuses.
pub fn parse(bytes: &[u8]) -> Result<Parsed, ImportError> {
    let accepted = read_accepted(bytes);
    match accepted.first_refused {
        Some(e) => Err(e),
        None => Ok(accepted.parsed),
    }
}

/// Reads the lines of a reference JSONL memory file that the reader accepts, and notes the
/// ones it refuses.
pub fn read_accepted(bytes: &[u8]) -> Accepted {
    let mut out = Accepted::default();
    let (mut invalid_utf8, mut bom) = (false, false);
    let (mut surrogates, mut no_observations) = (0, 0);
    for (i, line) in lines(bytes).enumerate() {
        invalid_utf8 |= line.invalid_utf8;
        bom |= line.bom;
        surrogates += line.surrogates;
        let content = match line.content {
            Ok(content) => content,
            Err(e) => {
                out.lines += 1;
                out.refused.push(i + 1);
                out.first_refused.get_or_insert(e);
                continue;
            }
        };
        out.lines += usize::from(content != Line::Blank);
        match content {
            Line::Blank => {}
            Line::Entity {
                entity,
                had_observations,
            } => {
                no_observations += usize::from(!had_observations);
                out.parsed.entities.push(entity);
            }
            Line::Relation(relation) => out.parsed.relations.push(relation),
            Line::Skipped => out.skipped += 1,
        }
    }
    if out.parsed.has_meta() {
        out.parsed.fold();
    }
    let warnings = &mut out.parsed.warnings;
    if invalid_utf8 {
        warnings.push("invalid UTF-8 bytes were replaced by U+FFFD".to_string());
    }
    if bom {
        warnings.push("a byte order mark was skipped".to_string());
    }
    if surrogates > 0 {
        warnings.push(format!(
            "{surrogates} lone UTF-16 surrogate escape(s) were replaced by U+FFFD"
        ));
    }
    if out.skipped > 0 {
        warnings.push(format!(
            "{} line(s) that are neither an entity nor a relation were skipped",
            out.skipped
        ));
    }
    if no_observations > 0 {
        warnings.push(format!(
            "{no_observations} entity line(s) without `observations` were read as having none"
        ));
    }
    out
}

impl Parsed {
    /// Reads the lines as the TypeScript seed's loader does: it appends an entity's new
    /// version on every update (`updateEntity`: tags, importance, parent) and keeps, per
    /// entity name and per relation (from, to, type), the last line, at the place of the
    /// first, until its next compaction. Says what was folded.
    fn fold(&mut self) {
        let entities = self.entities.len();
        let relations = self.relations.len();
        fold_by(&mut self.entities, |e| e.name.clone());
        fold_by(&mut self.relations, |r| {
            (r.from.clone(), r.to.clone(), r.relation_type.clone())
        });
        let (e, r) = (
            entities - self.entities.len(),
            relations - self.relations.len(),
        );
        if e + r > 0 {
            self.warnings.push(format!(
                "{e} entity line(s) and {r} relation line(s) were older versions of a later \
                 line (the Memory MCP server appends an entity's new version on each update); \
                 each kept its last version, at the place of its first, as that server reads them"
            ));
        }
    }

    /// Whether any line has the TypeScript seed's fields.
    pub fn has_meta(&self) -> bool {
        self.entities.iter().any(|e| e.meta.is_some())
            || self.relations.iter().any(|r| r.created != 0)
    }

    /// Records that rebuild exactly this file's graph (duplicates included) when replayed:
    /// the reference's shapes, or — for a file with the TypeScript seed's fields — the
    /// entities and relations in full.
    pub fn records(&self) -> Vec<Vec<u8>> {
        if !self.has_meta() {
            let entities: Vec<model::Entity<'_>> =
                self.entities.iter().map(EntityLine::entity).collect();
            let relations: Vec<model::Relation<'_>> =
                self.relations.iter().map(RelationLine::relation).collect();
            return graph::creating(&entities, &relations);
        }
        let entities: Vec<model::EntityState<'_>> =
            self.entities.iter().map(EntityLine::state).collect();
        let relations: Vec<model::RelationState<'_>> = self
            .relations
            .iter()
            .map(|r| model::RelationState {
                relation: r.relation(),
                created: r.created,
                context: None,
                ended: 0,
            })
            .collect();
        let entities = entities
            .chunks(graph::SNAPSHOT_CHUNK)
            .map(|c| Op::PutEntities(c.to_vec()));
        let relations = relations
            .chunks(graph::SNAPSHOT_CHUNK)
            .map(|c| Op::PutRelations(c.to_vec()));
        entities
            .chain(relations)
            .map(|op| Record::from(op).encode())
            .collect()
    }
}

/// Keeps one item per key: the last, at the place of the first.
fn fold_by<T, K: core::hash::Hash + Eq>(items: &mut Vec<T>, key: impl Fn(&T) -> K) {
    let mut first: HashMap<K, usize> = HashMap::default();
    let mut kept: Vec<Option<T>> = Vec::with_capacity(items.len());
    for item in items.drain(..) {
        match first.entry(key(&item)) {
            hashbrown::hash_map::Entry::Occupied(at) => kept[*at.get()] = Some(item),
            hashbrown::hash_map::Entry::Vacant(slot) => {
                slot.insert(kept.len());
                kept.push(Some(item));
            }
        }
    }
    items.extend(kept.into_iter().flatten());
}

impl EntityLine {
    /// The entity, borrowed.
    pub fn entity(&self) -> model::Entity<'_> {
        model::Entity {
            name: &self.name,
            entity_type: &self.entity_type,
            observations: self.observations.iter().map(String::as_str).collect(),
        }
    }

    /// The entity in full: its observations numbered from 1 and as old as the entity.
    pub fn state(&self) -> model::EntityState<'_> {
        let meta = self.meta.clone().unwrap_or_default();
        let m = self.meta.as_ref();
        let created = meta.created;
        model::EntityState {
            name: &self.name,
            entity_type: &self.entity_type,
            created,
            updated: meta.updated.max(created),
            tags: m.map_or(Vec::new(), |m| m.tags.iter().map(String::as_str).collect()),
            importance: meta.importance,
            parent: m.and_then(|m| m.parent.as_deref()),
            status: None,
            next_fact: self.observations.len() as u32 + 1,
            facts: model::Fact::numbered(self.observations.iter().map(String::as_str), created),
        }
    }
}

impl RelationLine {
    /// The relation, borrowed.
    pub fn relation(&self) -> model::Relation<'_> {
        model::Relation {
            from: &self.from,
            to: &self.to,
            relation_type: &self.relation_type,
        }
    }
}

/// A line of the reference's file: the entity or relation with `"type"` first.
#[derive(serde::Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum LineJson<'a> {
    Entity(model::Entity<'a>),
    Relation(model::Relation<'a>),
}

/// The graph in the reference's exact file format: entity lines, then relation lines,
/// joined by `\n` with no trailing newline (an empty graph is empty).
pub fn export(graph: &Graph) -> Vec<u8> {
    let entities = graph
        .entities()
        .map(|(_, e)| compact(&LineJson::Entity(graph.entity_text(e))));
    let relations = graph
        .relations()
        .map(|(_, r)| compact(&LineJson::Relation(graph.relation_text(r))));
    let lines: Vec<String> = entities.chain(relations).collect();
    lines.join("\n").into_bytes()
}

/// An entity as the TypeScript seed ("Memory MCP") shows it: the reference's fields, then
/// its own, each left out when not known. Its file's lines begin with `"type": "entity"`;
/// its tools' answers do not.
#[derive(serde::Serialize)]
pub(crate) struct MemoryMcpEntity<'a> {
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    /// Its name, type and observations.
    #[serde(flatten)]
    pub entity: model::Entity<'a>,
    /// When it was made, as the seed writes times.
    #[serde(rename = "createdAt", skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    /// When it last changed.
    #[serde(rename = "lastModified", skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    /// Its tags.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<&'a str>,
    /// Its importance, 0–10.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::json::js_number"
    )]
    pub importance: Option<f64>,
    /// The name of the entity it belongs under.
    #[serde(rename = "parentId", skip_serializing_if = "Option::is_none")]
    pub parent: Option<&'a str>,
}

impl<'a> MemoryMcpEntity<'a> {
    /// Entity `e` of `graph`; `line` gives it its file line's `"type"`.
    pub(crate) fn of(graph: &'a Graph, e: &'a graph::Entity, line: bool) -> Self {
        let extra = e.extra.as_deref();
        MemoryMcpEntity {
            kind: line.then_some("entity"),
            entity: graph.entity_text(e),
            created: time::iso_known(e.created),
            updated: time::iso_known(e.updated),
            tags: extra.map_or(Vec::new(), |x| {
                x.tags.iter().map(|&t| graph.text(t)).collect()
            }),
            importance: extra.and_then(|x| x.importance),
            parent: extra.and_then(|x| x.parent).map(|p| graph.text(p)),
        }
    }
}

impl<'a> MemoryMcpEntity<'a> {
    /// An entity in full (its current observations), as the seed shows it.
    pub(crate) fn of_state(e: &model::EntityState<'a>, line: bool) -> Self {
        let current = e.facts.iter().filter(|f| f.superseded == 0);
        MemoryMcpEntity {
            kind: line.then_some("entity"),
            entity: model::Entity {
                name: e.name,
                entity_type: e.entity_type,
                observations: current.map(|f| f.text).collect(),
            },
            created: time::iso_known(e.created),
            updated: time::iso_known(e.updated),
            tags: e.tags.clone(),
            importance: e.importance,
            parent: e.parent,
        }
    }
}

/// A relation as the TypeScript seed shows it (`lastModified` is when it was made: a
/// relation never changes here).
#[derive(serde::Serialize)]
pub(crate) struct MemoryMcpRelation<'a> {
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    /// Its triple.
    #[serde(flatten)]
    pub relation: model::Relation<'a>,
    /// When it was made, as the seed writes times.
    #[serde(rename = "createdAt", skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    /// The same: a relation never changes.
    #[serde(rename = "lastModified", skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
}

impl<'a> MemoryMcpRelation<'a> {
    /// Relation `r` of `graph`; `line` gives it its file line's `"type"`.
    pub(crate) fn of(graph: &'a Graph, r: &graph::Relation, line: bool) -> Self {
        MemoryMcpRelation {
            kind: line.then_some("relation"),
            relation: graph.relation_text(r),
            created: time::iso_known(r.created),
            updated: time::iso_known(r.created),
        }
    }

    /// A relation in full, as the seed shows it.
    pub(crate) fn of_state(r: &model::RelationState<'a>, line: bool) -> Self {
        MemoryMcpRelation {
            kind: line.then_some("relation"),
            relation: r.relation,
            created: time::iso_known(r.created),
            updated: time::iso_known(r.created),
        }
    }
}

/// The graph in the TypeScript seed's ("Memory MCP") file format: the reference's lines
/// with `createdAt`, `lastModified`, `tags`, `importance` and `parentId` where known, so its
/// users can go back.
pub fn export_memory_mcp(graph: &Graph) -> Vec<u8> {
    let entities = graph
        .entities()
        .map(|(_, e)| compact(&MemoryMcpEntity::of(graph, e, true)));
    let relations = graph
        .relations()
        .map(|(_, r)| compact(&MemoryMcpRelation::of(graph, r, true)));
    let lines: Vec<String> = entities.chain(relations).collect();
    lines.join("\n").into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_typescript_seeds_fields_and_writes_them_back() {
        let file = concat!(
            "{\"type\":\"entity\",\"name\":\"A\",\"entityType\":\"t\",\"observations\":[\"x\"],\"createdAt\":\"2023-11-14T22:13:20.000Z\",\"lastModified\":\"2023-11-14T22:14:20.000Z\",\"tags\":[\"work\"],\"importance\":7,\"parentId\":\"B\"}\n",
            "{\"type\":\"entity\",\"name\":\"B\",\"entityType\":\"t\",\"observations\":[]}\n",
            "{\"type\":\"relation\",\"from\":\"A\",\"to\":\"B\",\"relationType\":\"r\",\"createdAt\":\"2023-11-14T22:13:20.000Z\",\"lastModified\":\"2023-11-14T22:13:20.000Z\"}"
        );
        let parsed = parse(file.as_bytes()).unwrap();
        let meta = parsed.entities[0].meta.as_ref().unwrap();
        assert_eq!(
            (meta.created, meta.updated),
            (1_700_000_000_000, 1_700_000_060_000)
        );
        assert_eq!(parsed.relations[0].created, 1_700_000_000_000);
        let mut graph = Graph::default();
        for r in parsed.records() {
            graph.apply(&Record::decode(&r).unwrap(), &mut ());
        }
        let back = String::from_utf8(export_memory_mcp(&graph)).unwrap();
        assert_eq!(back, file);
        // The reference's format leaves them out.
        assert!(
            !String::from_utf8(export(&graph))
                .unwrap()
                .contains("createdAt")
        );
    }

    #[test]
    fn refuses_a_time_that_is_not_one_naming_the_line_and_field() {
        let err = parse(b"{\"type\":\"entity\",\"name\":\"a\",\"entityType\":\"t\",\"observations\":[],\"createdAt\":\"yesterday\"}")
            .unwrap_err();
        assert_eq!(err.line, 1);
        assert!(
            err.reason
                .starts_with("`createdAt`: \"yesterday\" is not a time"),
            "{}",
            err.reason
        );
    }

    #[test]
    fn reads_what_the_reference_reads() {
        let file = concat!(
            "{\"type\":\"entity\",\"name\":\"Alice\",\"entityType\":\"person\",\"observations\":[\"likes tea\"],\"extra\":1}\r\n",
            "\r\n   \n",
            "{\"observations\":[],\"entityType\":\"company\",\"name\":\"Acme\",\"type\":\"entity\"}\n",
            "{\"type\":\"weird\"}\n42\n\"str\"\n[1]\nnull\n",
            "{\"type\":\"relation\",\"from\":\"Alice\",\"to\":\"Acme\",\"relationType\":\"works_at\"}\n",
            "{\"type\":\"entity\",\"name\":\"Alice\",\"entityType\":\"dup\",\"observations\":[\"\\ud800\"]}"
        );
        let p = parse(file.as_bytes()).unwrap();
        let names: Vec<(&str, &str)> = p
            .entities
            .iter()
            .map(|e| (e.name.as_str(), e.entity_type.as_str()))
            .collect();
        assert_eq!(
            names,
            [("Alice", "person"), ("Acme", "company"), ("Alice", "dup")]
        );
        assert_eq!(p.entities[2].observations, ["\u{fffd}"]);
        assert_eq!(p.relations.len(), 1);
        assert_eq!(p.warnings.len(), 2, "{:?}", p.warnings);
    }

    #[test]
    fn refuses_text_that_is_not_json_naming_the_line() {
        let err = parse(b"{\"type\":\"entity\",\"name\":\"a\",\"entityType\":\"t\",\"observations\":[]}\n{not json\n")
            .unwrap_err();
        assert_eq!(err.line, 2);
    }

    #[test]
    fn refuses_wrongly_typed_fields() {
        let err =
            parse(b"{\"type\":\"entity\",\"name\":5,\"entityType\":\"t\",\"observations\":[]}")
                .unwrap_err();
        assert_eq!(err.reason, "`name` must be a string, found number");
        let err = parse(
            b"{\"type\":\"entity\",\"name\":\"a\",\"entityType\":\"t\",\"observations\":[1]}",
        )
        .unwrap_err();
        assert_eq!(err.reason, "observations must be strings, found number");
    }

    #[test]
    fn invalid_utf8_and_bom_are_repaired_and_reported() {
        let p = parse(b"\xef\xbb\xbf{\"type\":\"entity\",\"name\":\"bad\xff\",\"entityType\":\"t\",\"observations\":[]}")
            .unwrap();
        assert_eq!(p.entities[0].name, "bad\u{fffd}");
        assert_eq!(p.warnings.len(), 2);
    }
}
