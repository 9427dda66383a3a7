//! The reference's six mutating tools, each split into a *plan* (decided against the current
//! graph, without changing it) and its record (applied only after the log accepted it).
//!
//! Semantics are the reference server's (`tests/scenarios/tools-success.json`) except where
//! `docs/compatibility.md` says otherwise: a name or triple repeated inside one call is
//! created once.

use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;
use serde_json::Value;

use super::args::{AddObservations, DeleteEntities, DeleteObservations, Entities, Relations};
use super::output::{self, AddedJson};
use super::{Ctx, Plan, parse};
use crate::hash::{HashMap, HashSet};
use crate::json;
use crate::memory::Change;
use crate::model::{Entity, Observations, Relation};
use crate::record::Op;

/// Keeps the first occurrence of each item, in order.
fn dedup<T: Copy + Eq + core::hash::Hash>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut seen = HashSet::default();
    items.into_iter().filter(|s| seen.insert(*s)).collect()
}

#[derive(Serialize)]
struct EntitiesJson<'s, 'a> {
    entities: &'s [Entity<'a>],
}

#[derive(Serialize)]
struct RelationsJson<'s, 'a> {
    relations: &'s [Relation<'a>],
}

#[derive(Serialize)]
struct ResultsJson<'s, 'a> {
    results: &'s [AddedJson<'a>],
}

/// create_entities: entities whose name is new (in the graph and earlier in the call).
pub fn create_entities(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let entities = parse::<Entities>(a)?.entities;
    let mut seen = HashSet::default();
    let created: Vec<Entity<'_>> = entities
        .into_iter()
        .filter(|e| t.graph.first_named(e.name).is_none() && seen.insert(e.name))
        .collect();
    let result = output::success(
        &json::pretty(&created),
        &EntitiesJson { entities: &created },
    );
    Ok(Plan {
        change: Change::one(created, Op::CreateEntities),
        result,
    })
}

/// create_relations: relations whose triple is new (in the graph and earlier in the call).
/// Endpoints need not exist, as in the reference.
pub fn create_relations(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let relations = parse::<Relations>(a)?.relations;
    let created = dedup(
        relations
            .into_iter()
            .filter(|r| !t.graph.has_relation(r.from, r.to, r.relation_type)),
    );
    let result = output::success(
        &json::pretty(&created),
        &RelationsJson {
            relations: &created,
        },
    );
    Ok(Plan {
        change: Change::one(created, Op::CreateRelations),
        result,
    })
}

/// add_observations: per item, the contents the entity does not have yet (counting earlier
/// items of the same call). A missing entity fails the whole call; nothing is added.
pub fn add_observations(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let items = parse::<AddObservations>(a)?.observations;
    let mut pending: HashMap<&str, Vec<&str>> = HashMap::default();
    let mut results = Vec::with_capacity(items.len());
    for item in &items {
        let Some(id) = t.graph.first_named(item.entity) else {
            return Err(alloc::format!("Entity with name {} not found", item.entity));
        };
        let earlier = pending.entry(item.entity).or_default();
        let mut added = Vec::new();
        for &c in &item.contents {
            if !t.graph.has_observation(id, c) && !earlier.contains(&c) {
                added.push(c);
            }
        }
        earlier.extend_from_slice(&added);
        results.push(AddedJson {
            entity_name: item.entity,
            added_observations: added,
        });
    }
    let result = output::success(&json::pretty(&results), &ResultsJson { results: &results });
    let changes = results
        .into_iter()
        .filter(|r| !r.added_observations.is_empty())
        .map(|r| Observations {
            entity: r.entity_name,
            contents: r.added_observations,
        })
        .collect();
    Ok(Plan {
        change: Change::one(changes, Op::AddObservations),
        result,
    })
}

/// delete_entities: every entity with each name and every relation starting or ending at
/// it (even when no entity has the name, as in the reference).
pub fn delete_entities(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let names = parse::<DeleteEntities>(a)?.entity_names;
    let doomed: Vec<&str> = dedup(names)
        .into_iter()
        .filter(|n| !t.graph.named(n).is_empty() || t.graph.has_relations_at(n))
        .collect();
    Ok(Plan {
        change: Change::one(doomed, Op::DeleteEntities),
        result: output::success_message("Entities deleted successfully"),
    })
}

/// delete_observations: every occurrence of each listed observation, from the oldest entity
/// with the name. Missing entities and observations are ignored.
pub fn delete_observations(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let items = parse::<DeleteObservations>(a)?.deletions;
    let changes = items
        .iter()
        .filter_map(|item| {
            let id = t.graph.first_named(item.entity_name)?;
            let present: Vec<&str> = dedup(item.observations.iter().copied())
                .into_iter()
                .filter(|o| t.graph.has_observation(id, o))
                .collect();
            (!present.is_empty()).then_some(Observations {
                entity: item.entity_name,
                contents: present,
            })
        })
        .collect();
    Ok(Plan {
        change: Change::one(changes, Op::DeleteObservations),
        result: output::success_message("Observations deleted successfully"),
    })
}

/// delete_relations: every relation equal to one of the triples.
pub fn delete_relations(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let relations = parse::<Relations>(a)?.relations;
    let doomed = dedup(
        relations
            .into_iter()
            .filter(|r| t.graph.has_relation(r.from, r.to, r.relation_type)),
    );
    Ok(Plan {
        change: Change::one(doomed, Op::DeleteRelations),
        result: output::success_message("Relations deleted successfully"),
    })
}
