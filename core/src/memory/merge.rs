//! Merging entities into a graph: the upsert behind the `upsert_entities` tool and behind an
//! import into a memory that is not empty.

use alloc::vec::Vec;
use serde::Serialize;

use super::Change;
use crate::graph::Graph;
use crate::hash::{HashMap, HashSet};
use crate::intern::Sym;
use crate::model::{Entity, Observations};
use crate::record::Op;

/// What an upsert did to one entity of its input.
#[derive(Serialize, Debug, PartialEq, Eq)]
pub struct Upserted<'a> {
    /// The entity's name.
    pub name: &'a str,
    /// Whether this item created the entity.
    pub created: bool,
    /// The observations this item added, in order.
    #[serde(rename = "addedObservations")]
    pub added_observations: Vec<&'a str>,
}

/// Where an upserted name's new observations go.
#[derive(Clone, Copy)]
enum Slot {
    /// Into the `created` entity at this index.
    Created(usize),
    /// Into the `added` observations at this index.
    Added(usize),
}

/// What one name met in an upsert has: where its new observations go, the observations it
/// already had in the graph, and every one this upsert gave it.
struct Seen<'a> {
    slot: Slot,
    stored: HashSet<Sym>,
    gained: HashSet<&'a str>,
}

/// An upsert's records (entities created, then observations added) and per entity what it
/// did: a new name becomes an entity (its observations without repeats); a known name keeps
/// its type and gains the observations it lacks; a name repeated in the input is one
/// entity. Linear in the entities and their observations (and in the observations the
/// named entities already have).
pub fn upsert<'a>(graph: &Graph, entities: &[Entity<'a>]) -> (Vec<Op<'a>>, Vec<Upserted<'a>>) {
    let mut created: Vec<Entity<'a>> = Vec::new();
    let mut added: Vec<Observations<'a>> = Vec::new();
    let mut seen: HashMap<&'a str, Seen<'a>> = HashMap::default();
    let mut results: Vec<Upserted<'a>> = Vec::with_capacity(entities.len());
    for e in entities {
        let existing = graph.first_named(e.name);
        let first_sight = existing.is_none() && !seen.contains_key(e.name);
        let name = seen.entry(e.name).or_insert_with(|| {
            let (slot, stored) = match existing {
                Some(id) => {
                    added.push(Observations {
                        entity: e.name,
                        contents: Vec::new(),
                    });
                    let stored = graph.entity(id).observations.iter().copied().collect();
                    (Slot::Added(added.len() - 1), stored)
                }
                None => {
                    created.push(Entity {
                        name: e.name,
                        entity_type: e.entity_type,
                        observations: Vec::new(),
                    });
                    (Slot::Created(created.len() - 1), HashSet::default())
                }
            };
            Seen {
                slot,
                stored,
                gained: HashSet::default(),
            }
        });
        let mut fresh: Vec<&'a str> = Vec::new();
        for &o in &e.observations {
            let stored = graph
                .strings()
                .lookup(o)
                .is_some_and(|sym| name.stored.contains(&sym));
            if !stored && name.gained.insert(o) {
                fresh.push(o);
            }
        }
        match name.slot {
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
        records.push(Op::CreateEntities(created));
    }
    if !added.is_empty() {
        records.push(Op::AddObservations(added));
    }
    (records, results)
}

/// What merging another graph into `graph` changes (an import): its entities upserted, its
/// relations that `graph` lacks added — as one change, so replay applies the import whole
/// or not at all. A new entity or relation the file knows the times of comes in as the file
/// has it (times, tags, importance, parent, status, observations with their kinds and
/// history; a relation's context); others are made at the import's time. Also the counts
/// a summary gives ([`Merged`]).
pub fn merge_graph(graph: &Graph, other: &Graph) -> (Change, Merged) {
    let entities = other.entity_texts();
    let (mut records, results) = upsert(graph, &entities);
    let new_entities = results.iter().filter(|r| r.created).count();
    let extended: usize = results
        .iter()
        .filter(|r| graph.first_named(r.name).is_some())
        .map(|r| r.added_observations.len())
        .sum();
    let changed_entities = results
        .iter()
        .filter(|r| r.created || !r.added_observations.is_empty())
        .count();
    let mut exact = Vec::new();
    if let Some(Op::CreateEntities(created)) = records.first_mut() {
        created.retain(|e| match other.named(e.name) {
            [id] if other.entity(*id).created != 0 => {
                exact.push(other.entity_state(other.entity(*id)));
                false
            }
            _ => true,
        });
    }
    records.retain(|op| !matches!(op, Op::CreateEntities(list) if list.is_empty()));
    if !exact.is_empty() {
        records.insert(0, Op::PutEntities(exact));
    }
    let mut seen = HashSet::default();
    let (mut made, mut kept) = (Vec::new(), Vec::new());
    for (_, r) in other.relations() {
        let t = other.relation_text(r);
        if graph.has_relation(t.from, t.to, t.relation_type) || !seen.insert(t) {
            continue;
        }
        if r.created != 0 || r.context.is_some() {
            kept.push(other.relation_state(r, 0));
        } else {
            made.push(t);
        }
    }
    let new_relations = made.len() + kept.len();
    if !made.is_empty() {
        records.push(Op::CreateRelations(made));
    }
    if !kept.is_empty() {
        records.push(Op::PutRelations(kept));
    }
    let merged = Merged {
        new_entities,
        extended,
        changed_entities,
        new_relations,
    };
    (Change::of(records), merged)
}

/// What [`merge_graph`] counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Merged {
    /// Entities the graph did not have.
    pub new_entities: usize,
    /// Observations added to entities it had.
    pub extended: usize,
    /// Entities created or given observations they lacked.
    pub changed_entities: usize,
    /// Relations it did not have.
    pub new_relations: usize,
}
