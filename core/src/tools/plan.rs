//! Mutating tools, split into a *plan* (decided against the current graph, without changing
//! it) and its [`Record`] (applied only after the log accepted it).
//!
//! Semantics are the reference server's (`shared/spec`, §2.3) except where
//! `docs/compatibility.md` says otherwise: a name or triple repeated inside one call is
//! created once.

use alloc::string::String;
use alloc::vec::Vec;

use super::args::{AddArg, DeleteObsArg, EntityArg, RelationArg};
use super::output::{self, AddedJson, EntityJson, RelationJson};
use crate::graph::Graph;
use crate::hash::{HashMap, HashSet};
use crate::record::{NewEntity, Observations, Record, Triple};

/// A planned change: the record to log (none for a no-op), encoded, and the tool result to
/// send. The record is applied from its bytes, exactly as replay will apply it.
pub struct Plan {
    /// The encoded record to append and apply; `None` when nothing changes.
    pub record: Option<Vec<u8>>,
    /// The `CallToolResult` JSON to reply with once the record is applied.
    pub result: String,
}

fn record_if<'a, T>(items: Vec<T>, make: fn(Vec<T>) -> Record<'a>) -> Option<Vec<u8>> {
    (!items.is_empty()).then(|| make(items).encode())
}

/// Keeps the first occurrence of each string, in order.
fn dedup<'a>(items: &[&'a str]) -> Vec<&'a str> {
    let mut seen = HashSet::with_capacity_and_hasher(items.len(), Default::default());
    items.iter().copied().filter(|s| seen.insert(*s)).collect()
}

/// create_entities: entities whose name is new (in the graph and earlier in the call).
pub fn create_entities<'a>(graph: &Graph, entities: &[EntityArg<'a>]) -> Plan {
    let mut seen = HashSet::default();
    let created: Vec<NewEntity<'a>> = entities
        .iter()
        .filter(|e| graph.first_named(e.name).is_none() && seen.insert(e.name))
        .map(|e| NewEntity {
            name: e.name,
            entity_type: e.entity_type,
            observations: e.observations.clone(),
        })
        .collect();
    let shown: Vec<EntityJson<'_>> = created
        .iter()
        .map(|e| EntityJson {
            name: e.name,
            entity_type: e.entity_type,
            observations: e.observations.clone(),
        })
        .collect();
    let result = output::success(&output::pretty(&shown), &EntitiesJson { entities: &shown });
    Plan {
        record: record_if(created, Record::CreateEntities),
        result,
    }
}

#[derive(serde::Serialize)]
struct EntitiesJson<'s, 'a> {
    entities: &'s [EntityJson<'a>],
}

#[derive(serde::Serialize)]
struct RelationsJson<'s, 'a> {
    relations: &'s [RelationJson<'a>],
}

#[derive(serde::Serialize)]
struct ResultsJson<'s, 'a> {
    results: &'s [AddedJson<'a>],
}

fn triple<'a>(r: &RelationArg<'a>) -> Triple<'a> {
    Triple {
        from: r.from,
        to: r.to,
        relation_type: r.relation_type,
    }
}

/// create_relations: relations whose triple is new (in the graph and earlier in the call).
/// Endpoints need not exist, as in the reference.
pub fn create_relations<'a>(graph: &Graph, relations: &[RelationArg<'a>]) -> Plan {
    let mut seen = HashSet::default();
    let created: Vec<Triple<'a>> = relations
        .iter()
        .map(triple)
        .filter(|t| !graph.has_relation(t.from, t.to, t.relation_type))
        .filter(|t| seen.insert((t.from, t.to, t.relation_type)))
        .collect();
    let shown: Vec<RelationJson<'_>> = created
        .iter()
        .map(|t| RelationJson {
            from: t.from,
            to: t.to,
            relation_type: t.relation_type,
        })
        .collect();
    let result = output::success(
        &output::pretty(&shown),
        &RelationsJson { relations: &shown },
    );
    Plan {
        record: record_if(created, Record::CreateRelations),
        result,
    }
}

/// add_observations: per item, the contents the entity does not have yet (counting earlier
/// items of the same call). A missing entity fails the whole call; nothing is added.
pub fn add_observations<'a>(graph: &Graph, items: &[AddArg<'a>]) -> Result<Plan, String> {
    let mut pending: HashMap<&'a str, Vec<&'a str>> = HashMap::default();
    let mut results = Vec::with_capacity(items.len());
    for item in items {
        let Some(id) = graph.first_named(item.entity_name) else {
            return Err(alloc::format!(
                "Entity with name {} not found",
                item.entity_name
            ));
        };
        let entity = graph.entity(id);
        let has = |text: &str| {
            graph
                .strings()
                .lookup(text)
                .is_some_and(|sym| entity.observations.contains(&sym))
        };
        let earlier = pending.entry(item.entity_name).or_default();
        let mut added = Vec::new();
        for &c in &item.contents {
            if !has(c) && !earlier.contains(&c) {
                added.push(c);
            }
        }
        earlier.extend_from_slice(&added);
        results.push((item.entity_name, added));
    }
    let shown: Vec<AddedJson<'_>> = results
        .iter()
        .map(|(name, added)| AddedJson {
            entity_name: name,
            added_observations: added.clone(),
        })
        .collect();
    let result = output::success(&output::pretty(&shown), &ResultsJson { results: &shown });
    let changes = results
        .into_iter()
        .filter(|(_, added)| !added.is_empty())
        .map(|(entity, contents)| Observations { entity, contents })
        .collect();
    Ok(Plan {
        record: record_if(changes, Record::AddObservations),
        result,
    })
}

/// delete_entities: every entity with each name and every relation starting or ending at
/// it (even when no entity has the name, as in the reference).
pub fn delete_entities<'a>(graph: &Graph, names: &[&'a str]) -> Plan {
    let doomed: Vec<&'a str> = dedup(names)
        .into_iter()
        .filter(|n| !graph.named(n).is_empty() || graph.has_relations_at(n))
        .collect();
    Plan {
        record: record_if(doomed, Record::DeleteEntities),
        result: output::success_message("Entities deleted successfully"),
    }
}

/// delete_observations: every occurrence of each listed observation, from the oldest entity
/// with the name. Missing entities and observations are ignored.
pub fn delete_observations<'a>(graph: &Graph, items: &[DeleteObsArg<'a>]) -> Plan {
    let changes = items
        .iter()
        .filter_map(|item| {
            let entity = graph.entity(graph.first_named(item.entity_name)?);
            let present: Vec<&'a str> = dedup(&item.observations)
                .into_iter()
                .filter(|o| {
                    graph
                        .strings()
                        .lookup(o)
                        .is_some_and(|sym| entity.observations.contains(&sym))
                })
                .collect();
            (!present.is_empty()).then_some(Observations {
                entity: item.entity_name,
                contents: present,
            })
        })
        .collect();
    Plan {
        record: record_if(changes, Record::DeleteObservations),
        result: output::success_message("Observations deleted successfully"),
    }
}

/// delete_relations: every relation equal to one of the triples.
pub fn delete_relations<'a>(graph: &Graph, relations: &[RelationArg<'a>]) -> Plan {
    let mut seen = HashSet::default();
    let doomed = relations
        .iter()
        .map(triple)
        .filter(|t| graph.has_relation(t.from, t.to, t.relation_type))
        .filter(|t| seen.insert((t.from, t.to, t.relation_type)))
        .collect();
    Plan {
        record: record_if(doomed, Record::DeleteRelations),
        result: output::success_message("Relations deleted successfully"),
    }
}
