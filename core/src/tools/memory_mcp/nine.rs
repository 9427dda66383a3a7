//! The TypeScript seed's shapes of the reference's tools, under its profile: entities and
//! relations as it answers them (with `createdAt`, `lastModified`, `tags`, `importance`,
//! `parentId`), its checks and its words. `delete_observations` answers as the reference's
//! does there, so it has no twin here.
//!
//! - `create_entities` keeps the metadata and times an item gives (backdating), checks
//!   items as it does (names 1-500 characters, trimmed; types 1-100; observations 1-5000;
//!   importance a whole number 0-10) and answers the entities made.
//! - `create_relations` refuses the whole call when an end is missing.
//! - `read_graph`, `search_nodes` and `open_nodes` answer `{entities, relations}` with
//!   the relations between two of the entities returned; `search_nodes` is its substring
//!   match with its filters, the first 50 in graph order.
//! - the deletions say how many names or triples they were given.
//!
//! Where it is loose this server is not: a `parentId` names an entity and makes no cycle;
//! a name given twice in one call is made once.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Deserialize;
use serde_json::Value;

use super::formats::Doc;
use super::search::{CAP, FilterArgs, query_of};
use super::{EntityJson, RelationJson, answer, answer_list};
use crate::graph::{EntityId, Graph, RelationId};
use crate::hash::{HashMap, HashSet};
use crate::memory::Change;
use crate::model::{EntityState, Fact, Millis, Relation, RelationState};
use crate::record::Op;
use crate::time;
use crate::tools::reference::{plan, query};
use crate::tools::rules::{check_parent, importance, tags};
use crate::tools::{Ctx, Plan, output, parse};

/// Most items one call takes, as the seed's batches.
const BATCH_MAX: usize = 1000;

/// Checks a text's length in characters against the seed's bounds, trimmed first when the
/// seed trims it; the text as kept.
fn bounded<'a>(field: &str, text: &'a str, max: usize, trim: bool) -> Result<&'a str, String> {
    let kept = if trim { text.trim() } else { text };
    let n = kept.chars().count();
    if n == 0 {
        return Err(format!("{field}: cannot be empty"));
    }
    if n > max {
        return Err(format!(
            "{field}: cannot exceed {max} characters (it has {n})"
        ));
    }
    Ok(kept)
}

/// A name (1-500 characters, trimmed), as the seed checks names.
fn name<'a>(field: &str, text: &'a str) -> Result<&'a str, String> {
    bounded(field, text, 500, true)
}

/// A batch of at most [`BATCH_MAX`] items, and at least one where the seed asks for one.
fn batch(field: &str, len: usize, at_least_one: bool) -> Result<(), String> {
    if at_least_one && len == 0 {
        return Err(format!("{field}: give at least one"));
    }
    if len > BATCH_MAX {
        return Err(format!(
            "{field}: at most {BATCH_MAX} in one call (got {len})"
        ));
    }
    Ok(())
}

/// A time given as ISO 8601, or `or` when none is given.
fn time_or(field: &str, given: Option<&str>, or: Millis) -> Result<Millis, String> {
    given.map_or(Ok(or), |t| {
        time::parse(t).map_err(|e| format!("{field}: {e}"))
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NewEntity<'a> {
    name: &'a str,
    entity_type: &'a str,
    #[serde(borrow)]
    observations: Vec<&'a str>,
    #[serde(default)]
    tags: Option<Vec<&'a str>>,
    #[serde(default)]
    importance: Option<Value>,
    #[serde(default)]
    parent_id: Option<&'a str>,
    #[serde(default)]
    created_at: Option<&'a str>,
    #[serde(default)]
    last_modified: Option<&'a str>,
}

#[derive(Deserialize)]
struct NewEntities<'a> {
    #[serde(borrow)]
    entities: Vec<NewEntity<'a>>,
}

/// `create_entities`: the entities whose name is new, with the metadata and times their
/// items give (a time not given is now), answered as made.
pub fn create_entities(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let items = parse::<NewEntities>(a)?.entities;
    batch("entities", items.len(), false)?;
    // Every item is checked first (bad input changes nothing).
    let mut checked = Vec::with_capacity(items.len());
    let mut lowered: Vec<Vec<String>> = Vec::with_capacity(items.len());
    for (i, e) in items.iter().enumerate() {
        let field = |f: &str| format!("entities[{i}].{f}");
        let entity_name = name(&field("name"), e.name)?;
        let entity_type = bounded(&field("entityType"), e.entity_type, 100, true)?;
        for (j, &o) in e.observations.iter().enumerate() {
            bounded(&field(&format!("observations[{j}]")), o, 5000, false)?;
        }
        lowered.push(match &e.tags {
            Some(given) => tags(&field("tags"), given)?,
            None => Vec::new(),
        });
        let importance = match &e.importance {
            Some(Value::Number(n)) if n.as_f64().is_some_and(|x| x != (x as i64) as f64) => {
                return Err(format!("{}: must be a whole number", field("importance")));
            }
            Some(v) => importance(&field("importance"), v, false)?,
            None => None,
        };
        let created = time_or(&field("createdAt"), e.created_at, t.now)?;
        let updated = time_or(&field("lastModified"), e.last_modified, t.now)?;
        checked.push((entity_name, entity_type, importance, created, updated));
    }
    // Then the new names' entities are made, each name once.
    let mut made: Vec<EntityState<'_>> = Vec::new();
    let mut names: HashSet<&str> = HashSet::default();
    let mut parents: HashMap<&str, Option<&str>> = HashMap::default();
    for (i, (e, (entity_name, entity_type, importance, created, updated))) in
        items.iter().zip(checked).enumerate()
    {
        if t.graph.first_named(entity_name).is_some() || !names.insert(entity_name) {
            continue;
        }
        if let Some(parent) = e.parent_id {
            let field = format!("entities[{i}].parentId");
            check_parent(t.graph, &names, &parents, &field, entity_name, parent)?;
            parents.insert(entity_name, Some(parent));
        }
        made.push(EntityState {
            name: entity_name,
            entity_type,
            created,
            updated,
            tags: lowered[i].iter().map(String::as_str).collect(),
            importance,
            parent: e.parent_id,
            status: None,
            next_fact: e.observations.len() as u32 + 1,
            facts: Fact::numbered(e.observations.iter().copied(), created),
        });
    }
    let shown: Vec<EntityJson<'_>> = made
        .iter()
        .map(|e| EntityJson::of_state(e, false))
        .collect();
    let result = answer_list("entities", &shown);
    Ok(Plan {
        change: Change::one(made, Op::PutEntities),
        result,
    })
}

/// A relation to make; its `lastModified` is taken and not kept (its one time is when it
/// was made).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NewRelation<'a> {
    from: &'a str,
    to: &'a str,
    relation_type: &'a str,
    #[serde(default)]
    created_at: Option<&'a str>,
}

#[derive(Deserialize)]
struct NewRelations<'a> {
    #[serde(borrow)]
    relations: Vec<NewRelation<'a>>,
}

/// `create_relations`: the relations whose triple is new, made when their items say (else
/// now). An end that names no entity refuses the whole call, naming every such relation.
pub fn create_relations(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let items = parse::<NewRelations>(a)?.relations;
    batch("relations", items.len(), false)?;
    let mut checked = Vec::with_capacity(items.len());
    let mut dangling = Vec::new();
    for (i, r) in items.iter().enumerate() {
        let field = |f: &str| format!("relations[{i}].{f}");
        let relation = Relation {
            from: name(&field("from"), r.from)?,
            to: name(&field("to"), r.to)?,
            relation_type: bounded(&field("relationType"), r.relation_type, 100, true)?,
        };
        let created = time_or(&field("createdAt"), r.created_at, t.now)?;
        let missing: Vec<&str> = [relation.from, relation.to]
            .into_iter()
            .filter(|n| t.graph.first_named(n).is_none())
            .collect();
        if !missing.is_empty() {
            dangling.push(format!(
                "Relation from \"{}\" to \"{}\" references non-existent entities: {}",
                relation.from,
                relation.to,
                missing.join(", ")
            ));
        }
        checked.push((relation, created));
    }
    if !dangling.is_empty() {
        return Err(format!(
            "Relations reference non-existent entities: {}",
            dangling.join("; ")
        ));
    }
    let mut seen = HashSet::default();
    let made: Vec<RelationState<'_>> = checked
        .into_iter()
        .filter(|(r, _)| !t.graph.has_relation(r.from, r.to, r.relation_type) && seen.insert(*r))
        .map(|(relation, created)| RelationState {
            relation,
            created,
            context: None,
            ended: 0,
        })
        .collect();
    let shown: Vec<RelationJson<'_>> = made
        .iter()
        .map(|r| RelationJson::of_state(r, false))
        .collect();
    let result = answer_list("relations", &shown);
    Ok(Plan {
        change: Change::one(made, Op::PutRelations),
        result,
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Addition<'a> {
    entity_name: &'a str,
    #[serde(borrow)]
    contents: Vec<&'a str>,
}

#[derive(Deserialize)]
struct Additions<'a> {
    #[serde(borrow)]
    observations: Vec<Addition<'a>>,
}

/// `add_observations`: the reference's, with the seed's checks and its error for a missing
/// entity.
pub fn add_observations(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let items = parse::<Additions>(a)?.observations;
    batch("observations", items.len(), false)?;
    for (i, item) in items.iter().enumerate() {
        for (j, &o) in item.contents.iter().enumerate() {
            bounded(&format!("observations[{i}].contents[{j}]"), o, 5000, false)?;
        }
        if t.graph.first_named(item.entity_name).is_none() {
            return Err(format!("Entity \"{}\" not found", item.entity_name));
        }
    }
    plan::add_observations(t, a)
}

/// `delete_entities`: the reference's, answered as the seed answers it.
pub fn delete_entities(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let names = parse::<crate::tools::args::DeleteEntities>(a)?.entity_names;
    batch("entityNames", names.len(), true)?;
    let plan = plan::delete_entities(t, a)?;
    Ok(Plan {
        result: output::success_message(&format!("Deleted {} entities", names.len())),
        ..plan
    })
}

/// `delete_relations`: the reference's, answered as the seed answers it.
pub fn delete_relations(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let given = parse::<crate::tools::args::Relations>(a)?.relations.len();
    batch("relations", given, true)?;
    let plan = plan::delete_relations(t, a)?;
    Ok(Plan {
        result: output::success_message(&format!("Deleted {given} relations")),
        ..plan
    })
}

/// The answer of `entities` and `relations`, in its shapes.
fn graph_answer(g: &Graph, entities: &[EntityId], relations: &[RelationId]) -> String {
    answer(&Doc::of(g, entities, relations))
}

/// `entities` and the relations between two of them, in graph order.
fn among(g: &Graph, entities: &[EntityId]) -> String {
    let relations = super::search::relations_among(g, entities, |_| true);
    graph_answer(g, entities, &relations)
}

/// `read_graph`: every entity and relation, in its shapes.
pub fn read_graph(t: Ctx<'_>, _: &Value) -> Result<String, String> {
    let g = t.graph;
    let entities: Vec<EntityId> = g.entities().map(|(id, _)| id).collect();
    let relations: Vec<RelationId> = g.relations().map(|(id, _)| id).collect();
    Ok(graph_answer(g, &entities, &relations))
}

/// `search_nodes`: entities whose name, type or an observation contains the query (its
/// `toLowerCase` match), that pass its filters, the first 50 in graph order.
pub fn search_nodes(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let query = query_of(a)?;
    let filter = parse::<FilterArgs>(a)?.filter(t.graph);
    let mut found = query::reference_matches(t.graph, t.indexes, query);
    found.sort_unstable();
    found.retain(|&id| filter.admits(t.graph, t.graph.entity(id)));
    found.truncate(CAP);
    Ok(among(t.graph, &found))
}

#[derive(Deserialize)]
struct Names<'a> {
    #[serde(borrow, default)]
    names: Vec<&'a str>,
}

/// `open_nodes`: the entities with these names, in graph order.
pub fn open_nodes(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let names = parse::<Names>(a)?.names;
    let mut found: Vec<EntityId> = names
        .iter()
        .flat_map(|n| t.graph.named(n).iter().copied())
        .collect();
    found.sort_unstable();
    found.dedup();
    Ok(among(t.graph, &found))
}
