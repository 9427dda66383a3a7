//! Mutating tools beyond the reference's nine: `upsert_entities` and `merge_entities`, planned
//! like the nine (see `plan.rs`), each stored as one record so replay applies it whole or not
//! at all. Their definitions are in `extended/writes.json`.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::args::Entities;
use super::{Ctx, Plan, output, parse};
use crate::hash::HashSet;
use crate::json;
use crate::memory::Change;
use crate::memory::merge::{Upserted, upsert};
use crate::model::{Observations, Relation};
use crate::record::Op;

/// merge_entities' arguments.
#[derive(Deserialize)]
struct Merge<'a> {
    /// The entity merged away.
    source: &'a str,
    /// The entity that receives its observations and relations.
    target: &'a str,
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

/// upsert_entities: a new name becomes an entity (its observations without repeats); a known
/// name keeps its type and gains the observations it lacks. A name repeated in the call is
/// one entity. Per entity, in order: whether it was created and what was added.
pub fn upsert_entities(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let entities = parse::<Entities>(a)?.entities;
    let (records, results) = upsert(t.graph, &entities);
    Ok(Plan {
        change: Change::of(records),
        result: output::success(&json::pretty(&results), &UpsertResult { results: &results }),
    })
}

/// merge_entities: `source`'s observations that `target` lacks are added to it, relations
/// at `source` are redirected to `target` (dropping those that become self-loops or repeat
/// an existing relation), and `source` is deleted — one record, applied whole or not at all.
pub fn merge_entities(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let Merge { source, target } = parse(a)?;
    let graph = t.graph;
    if source == target {
        return Err(format!(
            "Cannot merge entity {source} into itself: source and target must differ"
        ));
    }
    let (Some(from), Some(into)) = (graph.first_named(source), graph.first_named(target)) else {
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
        if !graph.has_observation(into, text) && !observations.contains(&text) {
            observations.push(text);
        }
    }
    let touching = graph
        .strings()
        .lookup(source)
        .map(|sym| graph.relations_touching([sym]))
        .unwrap_or_default();
    let redirect = |name| if name == source { target } else { name };
    let mut seen = HashSet::default();
    let mut redirected: Vec<Relation<'_>> = Vec::new();
    for &id in &touching {
        let r = graph.relation(id);
        let (from, to) = (redirect(graph.text(r.from)), redirect(graph.text(r.to)));
        let relation_type = graph.text(r.relation_type);
        if from != to
            && !graph.has_relation(from, to, relation_type)
            && seen.insert((from, to, relation_type))
        {
            redirected.push(Relation {
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
        records.push(Op::AddObservations(vec![Observations {
            entity: target,
            contents: observations,
        }]));
    }
    if !redirected.is_empty() {
        records.push(Op::CreateRelations(redirected));
    }
    records.push(Op::DeleteEntities(vec![source]));
    Ok(Plan {
        change: Change::of(records),
        result: output::success(&json::pretty(&result), &result),
    })
}
