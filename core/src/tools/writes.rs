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
use crate::hash::{HashMap, HashSet};
use crate::record::{self, NewEntity, Observations, Record, Triple};

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
pub(crate) fn one_record(mut records: Vec<Record<'_>>) -> Option<Vec<u8>> {
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
    let (records, results) = upserted(graph, entities);
    Plan {
        record: one_record(records),
        result: output::success(
            &output::pretty(&results),
            &UpsertResult { results: &results },
        ),
    }
}

/// An upsert's records (entities created, then observations added) and per entity what it
/// did. Linear in the entities and their observations.
fn upserted<'a>(graph: &Graph, entities: &[EntityArg<'a>]) -> (Vec<Record<'a>>, Vec<Upserted<'a>>) {
    let mut created: Vec<NewEntity<'a>> = Vec::new();
    let mut added: Vec<Observations<'a>> = Vec::new();
    // Per name met in this call: where its new observations go, and every one it has gained.
    let mut slots: HashMap<&'a str, (Slot, HashSet<&'a str>)> = HashMap::default();
    let mut results: Vec<Upserted<'a>> = Vec::with_capacity(entities.len());
    for e in entities {
        let exists = graph.first_named(e.name).is_some();
        let first_sight = !exists && !slots.contains_key(e.name);
        let (slot, earlier) = slots.entry(e.name).or_insert_with(|| {
            let slot = if exists {
                added.push(Observations {
                    entity: e.name,
                    contents: Vec::new(),
                });
                Slot::Added(added.len() - 1)
            } else {
                created.push(NewEntity {
                    name: e.name,
                    entity_type: e.entity_type,
                    observations: Vec::new(),
                });
                Slot::Created(created.len() - 1)
            };
            (slot, HashSet::default())
        });
        let mut fresh: Vec<&'a str> = Vec::new();
        for &o in &e.observations {
            let known = exists && has_observation(graph, e.name, o);
            if !known && earlier.insert(o) {
                fresh.push(o);
            }
        }
        match *slot {
            Slot::Created(i) => created[i].observations.extend(fresh.iter().copied()),
            Slot::Added(i) => added[i].contents.extend(fresh.iter().copied()),
        }
        results.push(Upserted {
            name: e.name,
            created: first_sight,
            added_observations: fresh,
        });
    }
    added.retain(|a| !a.contents.is_empty());
    let mut records = Vec::new();
    if !created.is_empty() {
        records.push(Record::CreateEntities(created));
    }
    if !added.is_empty() {
        records.push(Record::AddObservations(added));
    }
    (records, results)
}

/// Where an upserted name's new observations go.
#[derive(Clone, Copy)]
enum Slot {
    /// Into the `created` entity at this index.
    Created(usize),
    /// Into the `added` observations at this index.
    Added(usize),
}

/// What merging another graph into `graph` changes (an import): its entities upserted, its
/// relations that `graph` lacks added — as one record, so replay applies the import whole
/// or not at all. Also the counts for the summary: new entities, observations added to
/// existing ones, new relations.
pub(crate) fn merge_graph(graph: &Graph, other: &Graph) -> (Option<Vec<u8>>, [usize; 3]) {
    let entities: Vec<EntityArg<'_>> = record::entities_of(other)
        .into_iter()
        .map(|e| EntityArg {
            name: e.name,
            entity_type: e.entity_type,
            observations: e.observations,
        })
        .collect();
    let (mut records, results) = upserted(graph, &entities);
    let new_entities = results.iter().filter(|r| r.created).count();
    let extended: usize = results
        .iter()
        .filter(|r| graph.first_named(r.name).is_some())
        .map(|r| r.added_observations.len())
        .sum();
    let mut seen = HashSet::default();
    let relations: Vec<Triple<'_>> = record::relations_of(other)
        .into_iter()
        .filter(|t| !graph.has_relation(t.from, t.to, t.relation_type))
        .filter(|t| seen.insert((t.from, t.to, t.relation_type)))
        .collect();
    let new_relations = relations.len();
    if !relations.is_empty() {
        records.push(Record::CreateRelations(relations));
    }
    (one_record(records), [new_entities, extended, new_relations])
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
