//! The Python seed's `migrate`: a reference memory.jsonl (or a memory file of ours, or the
//! Rust seed's log) that the host reads by the path the user names ([`crate::Log::read_named`]),
//! merged into the memory as one change and answered with the seed's counts
//! (`entities_imported`, `relations_imported`, `errors`, `skipped`).
//!
//! Counted as the seed counts a file's lines, with its idempotence made exact:
//! - `errors`: lines that are not JSON, or whose fields are not of their types;
//! - `skipped`: lines that are neither an entity nor a relation, an entity without a name, a
//!   relation missing a field or one of whose ends is neither in the memory nor in the file,
//!   and every entity and relation that would change nothing (already there: so a second run
//!   imports nothing and skips everything);
//! - `entities_imported`: entities the file adds, or whose observations it extends (a known
//!   entity keeps its type); `relations_imported`: relations the memory did not have.
//!
//! A file that holds no entity or relation line is refused (`isError`, naming
//! `source_path`), as is one the host would not read; either way nothing changes.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::answer;
use crate::frame;
use crate::graph::Graph;
use crate::hash::HashSet;
use crate::jsonl;
use crate::memory::{Store, imported, merge};
use crate::seedlog;
use crate::tools::call::commit;
use crate::tools::parse;
use crate::tools::{Call, Ctx, Done, Plan, Uses};

/// The answer: the seed's counts.
#[derive(Serialize, Debug, Default, PartialEq, Eq)]
pub struct Migrated {
    /// Entities added or extended.
    pub entities_imported: usize,
    /// Relations added.
    pub relations_imported: usize,
    /// Lines that could not be read.
    pub errors: usize,
    /// Lines and items that changed nothing.
    pub skipped: usize,
}

#[derive(Deserialize)]
struct Args {
    source_path: String,
}

/// migrate: the file the user names at `source_path`, read by the host, imported as one
/// change; a file that cannot be read or holds nothing to import is refused, naming it.
pub fn migrate(m: &mut dyn Store, c: Call<'_>) -> Done {
    let path = match source_path(c.args) {
        Ok(path) => path,
        Err(e) => return Done::failure(&e),
    };
    let bytes = match m.read_named(&path) {
        Ok(bytes) => bytes,
        Err(e) => return Done::failure(&refused(&path, &e.0)),
    };
    let planned = {
        // An import uses nothing.
        let uses = Uses::default();
        plan(Ctx::of(&*m, c.by, c.now, &uses), &path, &bytes)
    };
    match planned {
        Ok(plan) => commit(m, plan, c.by, c.now, Uses::default()),
        Err(e) => Done::failure(&e),
    }
}

/// The `source_path` a call names (its arguments already passed the schema); an empty one
/// is refused, as the seed refuses it.
fn source_path(a: &Value) -> Result<String, String> {
    let path = parse::<Args>(a)?.source_path;
    if path.is_empty() {
        return Err(String::from(
            "source_path is required: the path of a reference memory.jsonl file; nothing was imported",
        ));
    }
    Ok(path)
}

/// A failure of `migrate` on `path`: `why`, and that nothing changed.
fn refused(path: &str, why: &str) -> String {
    format!("source_path '{path}': {why}; nothing was imported")
}

/// The graph a file's bytes hold, with the lines it could not read (`errors`) and the ones
/// it skipped, counted before the merge.
struct Source {
    graph: Graph,
    errors: usize,
    skipped: usize,
}

/// The change importing `bytes` (the file the host read at `path`) makes to the graph, and
/// its answer; an error naming `source_path` if the file holds nothing to import.
fn plan(t: Ctx<'_>, path: &str, bytes: &[u8]) -> Result<Plan, String> {
    let no_lines = || {
        refused(
            path,
            "the file holds no entity or relation line (a reference memory.jsonl has lines like {\"type\":\"entity\",\"name\":…})",
        )
    };
    let source = if frame::is_log(bytes) || seedlog::is_seed_log(bytes) {
        let (graph, _) = imported(bytes).map_err(|e| refused(path, &e))?;
        Source {
            graph,
            errors: 0,
            skipped: 0,
        }
    } else {
        lines(t.graph, bytes).ok_or_else(no_lines)?
    };
    let other = &source.graph;
    if other.entity_count() + other.relation_count() == 0 && source.skipped == 0 {
        return Err(no_lines());
    }
    let (change, merged) = merge::merge_graph(t.graph, other);
    let migrated = Migrated {
        entities_imported: merged.changed_entities,
        relations_imported: merged.new_relations,
        errors: source.errors,
        skipped: source.skipped
            + (other.entity_count() - merged.changed_entities)
            + (other.relation_count() - merged.new_relations),
    };
    Ok(Plan {
        change,
        result: answer(&migrated),
    })
}

/// A JSONL file's entities and relations as a graph, less what the seed skips (entities
/// without a name; relations missing a field or an end, the memory's `graph` or the file's
/// entities); `None` if it has no entity or relation line.
fn lines(graph: &Graph, bytes: &[u8]) -> Option<Source> {
    let mut accepted = jsonl::read_accepted(bytes);
    let jsonl::Parsed {
        entities,
        relations,
        ..
    } = &mut accepted.parsed;
    if entities.is_empty() && relations.is_empty() {
        return None;
    }
    // Lines the reader refuses for a missing or empty name (or relation field) are lines
    // the seed skips; the others are its errors.
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let seed_skipped = (accepted.refused.iter())
        .filter(|&&n| lines.get(n - 1).is_some_and(|l| seed_skips(l)))
        .count();
    let mut skipped = accepted.skipped + seed_skipped;
    let before = entities.len();
    entities.retain(|e| !e.name.is_empty());
    skipped += before - entities.len();
    let before = relations.len();
    {
        let names: HashSet<&str> = entities.iter().map(|e| e.name.as_str()).collect();
        let known = |name: &str| names.contains(name) || graph.first_named(name).is_some();
        relations.retain(|r| !r.relation_type.is_empty() && known(&r.from) && known(&r.to));
    }
    skipped += before - relations.len();
    // Records this crate just wrote replay; should one not, the file is the reason.
    let graph = Graph::replay(&accepted.parsed.records()).ok()?.graph;
    Some(Source {
        graph,
        errors: accepted.refused.len() - seed_skipped,
        skipped,
    })
}

/// Whether the seed's migrate skips `line` rather than counting it an error: an entity
/// without a name, or a relation without `from`, `to` or `relationType` (missing or
/// falsy, as its `if not record.get(key)` reads them).
fn seed_skips(line: &[u8]) -> bool {
    let Ok(Value::Object(o)) = serde_json::from_slice::<Value>(line) else {
        return false;
    };
    let falsy = |key: &str| match o.get(key) {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => !b,
        Some(Value::Number(n)) => n.as_f64() == Some(0.0),
        Some(Value::String(s)) => s.is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Object(m)) => m.is_empty(),
    };
    match o.get("type").and_then(Value::as_str) {
        Some("entity") => falsy("name"),
        Some("relation") => ["from", "to", "relationType"].into_iter().any(falsy),
        _ => false,
    }
}
