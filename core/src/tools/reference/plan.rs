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

use crate::hash::{HashMap, HashSet};
use crate::json;
use crate::memory::Change;
use crate::model::{Entity, EntityPatch, NewFact, NewFacts, NewRelation, Observations, Relation};
use crate::record::Op;
use crate::tools::Ctx;
use crate::tools::Plan;
use crate::tools::args::{
    AddObservations, DeleteEntities, DeleteObservations, Entities, Relations,
};
use crate::tools::output::{self, AddedJson};
use crate::tools::parse;

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

/// What create_entities' items may carry beyond the reference's (items.json).
#[derive(serde::Deserialize)]
struct EntityExtras<'a> {
    name: &'a str,
    #[serde(borrow, default)]
    tags: Option<Vec<&'a str>>,
    #[serde(default)]
    importance: Option<Value>,
    #[serde(rename = "parentId", default)]
    parent: Option<&'a str>,
    #[serde(default)]
    status: Option<&'a str>,
}

#[derive(serde::Deserialize)]
struct EntitiesExtras<'a> {
    #[serde(borrow)]
    entities: Vec<EntityExtras<'a>>,
}

/// create_entities: entities whose name is new (in the graph and earlier in the call),
/// with the metadata their items give (tags, importance, parentId, status).
pub fn create_entities(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let entities = parse::<Entities>(a)?.entities;
    let extras = parse::<EntitiesExtras>(a)?.entities;
    let mut seen = HashSet::default();
    let created: Vec<(usize, Entity<'_>)> = entities
        .into_iter()
        .enumerate()
        .filter(|(_, e)| t.graph.first_named(e.name).is_none() && seen.insert(e.name))
        .collect();
    // Every item's metadata is checked (bad input changes nothing), the created ones' kept.
    let mut pending = HashMap::default();
    let mut metadata = Vec::new();
    for (i, x) in extras.iter().enumerate() {
        let field = |name: &str| alloc::format!("entities[{i}].{name}");
        let tags = match &x.tags {
            Some(given) => Some(crate::tools::rules::tags(&field("tags"), given)?),
            None => None,
        };
        let importance = match &x.importance {
            Some(v) => Some(crate::tools::rules::importance(
                &field("importance"),
                v,
                false,
            )?),
            None => None,
        };
        if let Some(parent) = x.parent {
            crate::tools::rules::check_parent(
                t.graph,
                &seen,
                &pending,
                &field("parentId"),
                x.name,
                parent,
            )?;
            pending.insert(x.name, Some(parent));
        }
        metadata.push((tags, importance));
    }
    let patches: Vec<EntityPatch<'_>> = created
        .iter()
        .filter_map(|&(i, _)| {
            let x = &extras[i];
            let (tags, importance) = &metadata[i];
            let any =
                tags.is_some() || importance.is_some() || x.parent.is_some() || x.status.is_some();
            any.then(|| EntityPatch {
                name: x.name,
                tags: tags
                    .as_ref()
                    .map(|t| t.iter().map(String::as_str).collect()),
                importance: *importance,
                parent: x.parent.map(Some),
                status: x.status,
            })
        })
        .collect();
    let created: Vec<Entity<'_>> = created.into_iter().map(|(_, e)| e).collect();
    let result = output::success(
        &json::pretty(&created),
        &EntitiesJson { entities: &created },
    );
    let mut ops = Vec::new();
    if !created.is_empty() {
        ops.push(Op::CreateEntities(created));
    }
    if !patches.is_empty() {
        ops.push(Op::PatchEntities(patches));
    }
    Ok(Plan {
        change: Change::of(ops),
        result,
    })
}

/// What create_relations' items may carry beyond the reference's.
#[derive(serde::Deserialize)]
struct RelationExtras<'a> {
    #[serde(default)]
    context: Option<&'a str>,
}

#[derive(serde::Deserialize)]
struct RelationsExtras<'a> {
    #[serde(borrow)]
    relations: Vec<RelationExtras<'a>>,
}

/// create_relations: relations whose triple is new (in the graph and earlier in the call),
/// with the context their items give. Endpoints need not exist, as in the reference.
pub fn create_relations(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let relations = parse::<Relations>(a)?.relations;
    let contexts = parse::<RelationsExtras>(a)?.relations;
    let mut context_of: HashMap<Relation<'_>, &str> = HashMap::default();
    for (r, x) in relations.iter().zip(&contexts) {
        if let Some(c) = x.context {
            context_of.entry(*r).or_insert(c);
        }
    }
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
    let change = if created.iter().any(|r| context_of.contains_key(r)) {
        let with: Vec<NewRelation<'_>> = created
            .iter()
            .map(|&relation| NewRelation {
                relation,
                context: context_of.get(&relation).copied(),
            })
            .collect();
        Change::one(with, Op::CreateRelationsWith)
    } else {
        Change::one(created, Op::CreateRelations)
    };
    Ok(Plan { change, result })
}

/// What add_observations' items may carry beyond the reference's.
#[derive(serde::Deserialize)]
struct ObservationExtras<'a> {
    #[serde(default)]
    kind: Option<&'a str>,
    #[serde(default)]
    supersedes: Option<Value>,
}

#[derive(serde::Deserialize)]
struct ObservationsExtras<'a> {
    #[serde(borrow)]
    observations: Vec<ObservationExtras<'a>>,
}

/// add_observations: per item, the contents the entity does not have yet (counting earlier
/// items of the same call), of the item's kind, superseding the observation the item
/// names. A missing entity, or a supersedes naming no current observation, fails the whole
/// call; nothing is added.
pub fn add_observations(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let items = parse::<AddObservations>(a)?.observations;
    let extras = parse::<ObservationsExtras>(a)?.observations;
    let mut pending: HashMap<&str, Vec<&str>> = HashMap::default();
    let mut results = Vec::with_capacity(items.len());
    let mut superseded = Vec::with_capacity(items.len());
    for (i, (item, x)) in items.iter().zip(&extras).enumerate() {
        let Some(id) = t.graph.first_named(item.entity) else {
            return Err(alloc::format!("Entity with name {} not found", item.entity));
        };
        superseded.push(match &x.supersedes {
            Some(target) => {
                if item.contents.len() != 1 {
                    return Err(alloc::format!(
                        "observations[{i}].contents: with supersedes, give exactly one observation (the one that replaces it); got {}",
                        item.contents.len()
                    ));
                }
                crate::tools::rules::superseded(t.graph, id, &alloc::format!("observations[{i}].supersedes"), target)?
            }
            None => 0,
        });
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
    let detailed = extras
        .iter()
        .any(|x| x.kind.is_some() || x.supersedes.is_some());
    let change = if detailed {
        let facts = results
            .iter()
            .zip(extras.iter().zip(&superseded))
            .filter(|(r, _)| !r.added_observations.is_empty())
            .map(|(r, (x, &supersedes))| NewFacts {
                entity: r.entity_name,
                facts: r
                    .added_observations
                    .iter()
                    .map(|&text| NewFact {
                        text,
                        kind: x.kind,
                        supersedes,
                    })
                    .collect(),
            })
            .collect();
        Change::one(facts, Op::AddFacts)
    } else {
        let changes = results
            .into_iter()
            .filter(|r| !r.added_observations.is_empty())
            .map(|r| Observations {
                entity: r.entity_name,
                contents: r.added_observations,
            })
            .collect();
        Change::one(changes, Op::AddObservations)
    };
    Ok(Plan { change, result })
}

/// delete_entities: every entity with each name and every relation starting or ending at
/// it, holding or ended (even when no entity has the name, as in the reference).
pub fn delete_entities(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let names = parse::<DeleteEntities>(a)?.entity_names;
    let g = t.graph;
    let doomed: Vec<&str> = dedup(names)
        .into_iter()
        .filter(|n| !g.named(n).is_empty() || g.has_relations_at(n) || g.has_ended_at(n))
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

/// delete_relations: every relation equal to one of the triples, holding or ended.
pub fn delete_relations(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let relations = parse::<Relations>(a)?.relations;
    let g = t.graph;
    let doomed = dedup(relations.into_iter().filter(|r| {
        g.has_relation(r.from, r.to, r.relation_type) || g.has_ended(r.from, r.to, r.relation_type)
    }));
    Ok(Plan {
        change: Change::one(doomed, Op::DeleteRelations),
        result: output::success_message("Relations deleted successfully"),
    })
}
