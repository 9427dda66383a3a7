//! Mutating tools beyond the reference's nine: `upsert_entities` and `merge_entities`, planned
//! like the nine (see `plan.rs`), each stored as one record so replay applies it whole or not
//! at all. Their definitions are in `extended/writes.json`.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::args::EntityArg;
use super::output;
use super::plan::Plan;
use crate::graph::Graph;
use crate::hash::HashSet;
use crate::record::{NewEntity, Observations, Record, Triple};

/// upsert_entities' arguments.
#[derive(Deserialize)]
pub struct Upsert<'a> {
    /// The entities to create or merge into.
    #[serde(borrow)]
    pub entities: Vec<EntityArg<'a>>,
}

/// merge_entities' arguments.
#[derive(Deserialize)]
pub struct Merge<'a> {
    /// The entity merged away.
    pub source: &'a str,
    /// The entity that receives its observations and relations.
    pub target: &'a str,
}

#[derive(Serialize)]
struct Upserted<'a> {
    name: &'a str,
    created: bool,
    #[serde(rename = "addedObservations")]
    added_observations: Vec<&'a str>,
}

#[derive(Serialize)]
struct UpsertResult<'s, 'a> {
    results: &'s [Upserted<'a>],
}

#[derive(Serialize)]
struct MergeResult<'a> {
    source: &'a str,
    target: &'a str,
    #[serde(rename = "addedObservations")]
    added_observations: usize,
    #[serde(rename = "redirectedRelations")]
    redirected_relations: usize,
    #[serde(rename = "droppedRelations")]
    dropped_relations: usize,
}

/// One record for several changes: none, the change itself, or a batch.
fn one_record(mut records: Vec<Record<'_>>) -> Option<Vec<u8>> {
    match records.len() {
        0 => None,
        1 => records.pop().map(|r| r.encode()),
        _ => Some(Record::Batch(records).encode()),
    }
}

/// Whether the oldest entity named `name` has observation `text`.
fn has_observation(graph: &Graph, name: &str, text: &str) -> bool {
    let Some(id) = graph.first_named(name) else {
        return false;
    };
    graph
        .strings()
        .lookup(text)
        .is_some_and(|sym| graph.entity(id).observations.contains(&sym))
}

/// upsert_entities: a new name becomes an entity (its observations without repeats); a known
/// name keeps its type and gains the observations it lacks. A name repeated in the call is
/// one entity. Per entity, in order: whether it was created and what was added.
pub fn upsert_entities(graph: &Graph, entities: &[EntityArg<'_>]) -> Plan {
    let mut created: Vec<NewEntity<'_>> = Vec::new();
    let mut added: Vec<Observations<'_>> = Vec::new();
    let mut results: Vec<Upserted<'_>> = Vec::with_capacity(entities.len());
    for e in entities {
        let exists = graph.first_named(e.name).is_some();
        let new = created.iter().position(|c| c.name == e.name);
        let earlier: Vec<&str> = match new {
            Some(i) => created[i].observations.clone(),
            None => added
                .iter()
                .filter(|a| a.entity == e.name)
                .flat_map(|a| a.contents.iter().copied())
                .collect(),
        };
        let mut fresh: Vec<&str> = Vec::new();
        for &o in &e.observations {
            let known = exists && has_observation(graph, e.name, o);
            if !known && !earlier.contains(&o) && !fresh.contains(&o) {
                fresh.push(o);
            }
        }
        let first_sight = !exists && new.is_none();
        match new {
            Some(i) => created[i].observations.extend(fresh.iter().copied()),
            None if first_sight => created.push(NewEntity {
                name: e.name,
                entity_type: e.entity_type,
                observations: fresh.clone(),
            }),
            None if !fresh.is_empty() => added.push(Observations {
                entity: e.name,
                contents: fresh.clone(),
            }),
            None => {}
        }
        results.push(Upserted {
            name: e.name,
            created: first_sight,
            added_observations: fresh,
        });
    }
    let mut records = Vec::new();
    if !created.is_empty() {
        records.push(Record::CreateEntities(created));
    }
    if !added.is_empty() {
        records.push(Record::AddObservations(added));
    }
    Plan {
        record: one_record(records),
        result: output::success(
            &output::pretty(&results),
            &UpsertResult { results: &results },
        ),
    }
}

/// merge_entities: `source`'s observations that `target` lacks are added to it, relations
/// at `source` are redirected to `target` (dropping those that become self-loops or repeat
/// an existing relation), and `source` is deleted — one record, applied whole or not at all.
pub fn merge_entities<'a>(
    graph: &'a Graph,
    source: &'a str,
    target: &'a str,
) -> Result<Plan, String> {
    if source == target {
        return Err(format!(
            "Cannot merge entity {source} into itself: source and target must differ"
        ));
    }
    let (Some(from), Some(_)) = (graph.first_named(source), graph.first_named(target)) else {
        let missing = if graph.first_named(source).is_none() {
            source
        } else {
            target
        };
        return Err(format!("Entity with name {missing} not found"));
    };
    let mut observations: Vec<&str> = Vec::new();
    for &sym in &graph.entity(from).observations {
        let text = graph.text(sym);
        if !has_observation(graph, target, text) && !observations.contains(&text) {
            observations.push(text);
        }
    }
    let touching = graph
        .strings()
        .lookup(source)
        .map(|sym| graph.relations_touching([sym]))
        .unwrap_or_default();
    let redirect = |name: &'a str| if name == source { target } else { name };
    let mut seen = HashSet::default();
    let mut redirected: Vec<Triple<'_>> = Vec::new();
    for &id in &touching {
        let r = graph.relation(id);
        let (from, to) = (redirect(graph.text(r.from)), redirect(graph.text(r.to)));
        let relation_type = graph.text(r.relation_type);
        if from != to
            && !graph.has_relation(from, to, relation_type)
            && seen.insert((from, to, relation_type))
        {
            redirected.push(Triple {
                from,
                to,
                relation_type,
            });
        }
    }
    let result = MergeResult {
        source,
        target,
        added_observations: observations.len(),
        redirected_relations: redirected.len(),
        dropped_relations: touching.len() - redirected.len(),
    };
    let mut records = Vec::new();
    if !observations.is_empty() {
        records.push(Record::AddObservations(vec![Observations {
            entity: target,
            contents: observations,
        }]));
    }
    if !redirected.is_empty() {
        records.push(Record::CreateRelations(redirected));
    }
    records.push(Record::DeleteEntities(vec![source]));
    Ok(Plan {
        record: one_record(records),
        result: output::success(&output::pretty(&result), &result),
    })
}
